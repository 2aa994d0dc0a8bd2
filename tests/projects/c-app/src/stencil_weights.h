/* Found only through the directory of stencil.c: a quoted include. */
#define WEIGHT_LEFT 1
#define WEIGHT_CENTRE 2
#define WEIGHT_RIGHT 1
