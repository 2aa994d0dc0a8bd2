#define VALUE 1
