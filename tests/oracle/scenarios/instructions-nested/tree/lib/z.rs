fn z() {}
