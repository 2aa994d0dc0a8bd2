int plain(void) { return 1; }
