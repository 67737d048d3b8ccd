fn a() {}
