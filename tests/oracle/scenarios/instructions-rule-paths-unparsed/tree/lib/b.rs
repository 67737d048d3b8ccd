fn b() {}
