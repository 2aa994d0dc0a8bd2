/* The training run of the parser's profile-guided build (build.rs): it
 * parses each file named on the command line with the grammar its name
 * tells: once whole, once in the pieces pomp reads (every line that opens
 * or closes a block, the others passed over), and those lines again a few
 * at a time in parses of their own, as pomp parses functions, so that the
 * compiler learns which way the parser's branches go on real code. It prints
 * nothing and fails only when a file cannot be read. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

const TSLanguage *pomp_tree_sitter_c(void);
const TSLanguage *pomp_tree_sitter_cpp(void);
const TSLanguage *pomp_tree_sitter_fortran(void);

/* The lines of a parse of pieces: a function's head, its loops' heads
 * and the braces that close them. */
#define PIECE_LINES 6

static const TSLanguage *grammar_of(const char *path) {
  const char *dot = strrchr(path, '.');
  if (!dot) return NULL;
  if (!strcmp(dot, ".c") || !strcmp(dot, ".h")) return pomp_tree_sitter_c();
  if (!strcmp(dot, ".cpp") || !strcmp(dot, ".cc") || !strcmp(dot, ".hpp"))
    return pomp_tree_sitter_cpp();
  if (!strcmp(dot, ".f90") || !strcmp(dot, ".f") || !strcmp(dot, ".F90"))
    return pomp_tree_sitter_fortran();
  return NULL;
}

static char *read_whole(const char *path, long *length) {
  FILE *file = fopen(path, "rb");
  if (!file) return NULL;
  char *text = NULL;
  if (fseek(file, 0, SEEK_END) == 0 && (*length = ftell(file)) >= 0 &&
      fseek(file, 0, SEEK_SET) == 0 && (text = malloc(*length + 1)) &&
      fread(text, 1, *length, file) != (size_t)*length) {
    free(text);
    text = NULL;
  }
  fclose(file);
  return text;
}

/* The lines holding a brace, as ranges of the text: function heads,
 * loop heads and the braces that close them, as the partial parse reads. */
static uint32_t braced_lines(const char *text, uint32_t length, TSRange *ranges) {
  uint32_t count = 0, start = 0, row = 0;
  for (uint32_t at = 0; at <= length; at++) {
    if (at < length && text[at] != '\n') continue;
    if (memchr(text + start, '{', at - start) || memchr(text + start, '}', at - start)) {
      ranges[count++] = (TSRange){
          .start_point = {row, 0},
          .end_point = {row, at - start},
          .start_byte = start,
          .end_byte = at,
      };
    }
    start = at + 1;
    row++;
  }
  return count;
}

int main(int argc, char **argv) {
  TSParser *parser = ts_parser_new();
  for (int i = 1; i < argc; i++) {
    const TSLanguage *grammar = grammar_of(argv[i]);
    if (!grammar) continue;
    long length;
    char *text = read_whole(argv[i], &length);
    if (!text) {
      perror(argv[i]);
      return 1;
    }
    ts_parser_set_language(parser, grammar);
    ts_parser_set_included_ranges(parser, NULL, 0);
    ts_tree_delete(ts_parser_parse_string(parser, NULL, text, length));
    TSRange *ranges = malloc(sizeof(TSRange) * (length + 1));
    uint32_t count = braced_lines(text, length, ranges);
    if (count && ts_parser_set_included_ranges(parser, ranges, count))
      ts_tree_delete(ts_parser_parse_string(parser, NULL, text, length));
    /* And a few lines at a time, as pomp reads a function's pieces. */
    for (uint32_t first = 0; first < count; first += PIECE_LINES) {
      uint32_t lines = count - first < PIECE_LINES ? count - first : PIECE_LINES;
      if (ts_parser_set_included_ranges(parser, ranges + first, lines))
        ts_tree_delete(ts_parser_parse_string(parser, NULL, text, length));
    }
    free(ranges);
    free(text);
  }
  ts_parser_delete(parser);
  return 0;
}
