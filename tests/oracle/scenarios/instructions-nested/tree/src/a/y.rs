fn y() {}
