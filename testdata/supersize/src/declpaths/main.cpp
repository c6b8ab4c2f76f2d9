// Instantiates the header template for long; a data array of its own.
#include "shapes.h"
int bump(int x);
int g_main_data[32] = {2};
int main(int argc, char **) {
  g_counter += argc;
  g_main_data[argc & 31]++;
  return scaled<long>(argc, 3) + bump(argc) + header_inline(argc) + g_counter;
}
