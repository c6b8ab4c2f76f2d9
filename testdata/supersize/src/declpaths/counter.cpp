// Defines the variable shapes.h declares; instantiates the header template for int.
#include "shapes.h"
int g_counter = 5;
int bump(int x) { return scaled<int>(x, 2) + header_inline(x); }
