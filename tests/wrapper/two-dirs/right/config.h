#define VALUE 2
