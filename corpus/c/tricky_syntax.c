/* Directives in awkward places: unbraced if/else, a directive between an
 * if and its loop, do-while, switch and labelled statements as blocks,
 * continued pragma lines with comments, _Pragma, and a directive produced
 * by a macro expansion (which pomp reports and leaves alone). */
#include <stdio.h>

/* _Pragma's string is not macro-expanded, so the macro names its variable. */
#define PARALLEL_SUM_INTO_FROM_MACRO(n)                                                   \
    do {                                                                                  \
        _Pragma("omp parallel for reduction(+ : from_macro)") for (int i = 0; i < (n); i++) \
            from_macro += i;                                                              \
    } while (0)

static int check(const char *what, long got, long expected)
{
    printf("%-32s %ld\n", what, got);
    if (got == expected)
        return 0;
    printf("FAILED: %s: expected %ld\n", what, expected);
    return 1;
}

static long conditional_loop(int enabled, int n)
{
    long total = 0;
    if (enabled)
#pragma omp parallel for reduction(+ : total)
        for (int i = 0; i < n; i++)
            total += i;
    else
        total = -1;
    return total;
}

int main(void)
{
    int failures = 0;
    int flag = 1;

    long taken = 0, other = 0;
#pragma omp parallel reduction(+ : taken, other)
    if (flag)
        taken += 1;
    else
        other += 1;
    failures += check("unbraced if/else as block", other, 0);
    failures += check("  taken at least once", taken >= 1, 1);

    failures += check("pragma between if and loop", conditional_loop(1, 50), 1225);
    failures += check("  else branch", conditional_loop(0, 50), -1);

    int rounds = 0;
#pragma omp parallel shared(rounds)
    do {
#pragma omp single
        rounds++;
    } while (0);
    failures += check("do-while block", rounds, 1);

    long picked = 0;
    int choice = 2;
#pragma omp parallel reduction(+ : picked)
    switch (choice) {
    case 1:
        picked += 100;
        break;
    case 2:
        picked += 1;
        break;
    default:
        picked += 1000;
    }
    failures += check("switch block, only case 2 ran", picked >= 1 && picked % 100 == picked, 1);

    int labelled = 0;
    int attempts = 0;
again:
#pragma omp parallel for reduction(+ : labelled)
    for (int i = 0; i < 10; i++)
        labelled += 1;
    if (++attempts < 2)
        goto again;
    failures += check("directive after a label", labelled, 20);

    int finished = 0;
#pragma omp parallel shared(finished)
    {
#pragma omp single
    count_again:
        if (++finished < 3)
            goto count_again;
    }
    failures += check("labelled statement as block", finished, 3);

    long continued = 0;
#pragma omp parallel for /* comment inside */ \
    schedule(static, 4)                         \
    reduction(+ : continued) // trailing comment
    for (int i = 0; i < 64; i++)
        continued += i;
    failures += check("continued pragma lines", continued, 2016);

    long separated = 0;
#pragma omp parallel reduction(+ : separated)
    /* a comment between two directives */
    // and another one
#pragma omp for
    for (int i = 0; i < 64; i++)
        separated += i;
    failures += check("comments between directives", separated, 2016);

    long from_pragma_operator = 0;
    _Pragma("omp parallel for reduction(+ : from_pragma_operator)")
    for (int i = 0; i < 64; i++)
        from_pragma_operator += i;
    failures += check("_Pragma in the file", from_pragma_operator, 2016);

    long from_macro = 0;
    PARALLEL_SUM_INTO_FROM_MACRO(64);
    failures += check("_Pragma in a macro", from_macro, 2016);

    if (failures)
        return 1;
    printf("tricky_syntax: ok\n");
    return 0;
}
