/* Turns on the event trace of OPARI 1.1's libpomp before main runs. The
 * library defines pomp_tracing itself (zero): a definition here would be
 * a second one, so the flag is set instead. */
extern int pomp_tracing;

__attribute__((constructor)) static void trace_pomp_events(void) { pomp_tracing = 1; }
