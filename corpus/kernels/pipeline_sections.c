/* A three-stage pipeline in sections: a producer, a transformer and a
 * consumer pass items through two bounded queues guarded by locks, while a
 * critical section keeps the statistics. A stage only ever waits for an
 * earlier one and the sections are handed out in order (as libgomp does),
 * so any number of threads completes: with fewer threads than stages the
 * later sections run after the earlier ones, and the queues hold every
 * item. */
#include <omp.h>
#include <stdio.h>

#define ITEMS 2000

typedef struct {
    long items[ITEMS];
    int head, tail;
    omp_lock_t lock;
} queue;

static void queue_init(queue *q)
{
    q->head = q->tail = 0;
    omp_init_lock(&q->lock);
}

static void push(queue *q, long item)
{
    omp_set_lock(&q->lock);
    q->items[q->tail++] = item;
    omp_unset_lock(&q->lock);
}

/* Returns 1 and the next item, or 0 when the queue is empty just now. */
static int try_pop(queue *q, long *item)
{
    int got = 0;
    omp_set_lock(&q->lock);
    if (q->head < q->tail) {
        *item = q->items[q->head++];
        got = 1;
    }
    omp_unset_lock(&q->lock);
    return got;
}

static queue raw, cooked;
static long transformed = 0, consumed_sum = 0, consumed = 0;

int main(void)
{
    queue_init(&raw);
    queue_init(&cooked);
#pragma omp parallel sections
    {
#pragma omp section
        for (long i = 1; i <= ITEMS; i++)
            push(&raw, i);
#pragma omp section
        {
            long item;
            while (transformed < ITEMS)
                if (try_pop(&raw, &item)) {
                    push(&cooked, item * item % 1009);
#pragma omp critical(statistics)
                    transformed++;
                } else {
#pragma omp taskyield
                }
        }
#pragma omp section
        {
            long item;
            long done = 0;
            while (done < ITEMS)
                if (try_pop(&cooked, &item)) {
                    done++;
#pragma omp critical(statistics)
                    {
                        consumed++;
                        consumed_sum += item;
                    }
                }
        }
    }
    omp_destroy_lock(&raw.lock);
    omp_destroy_lock(&cooked.lock);

    long expected = 0;
    for (long i = 1; i <= ITEMS; i++)
        expected += i * i % 1009;
    printf("pipeline: %ld items, checksum %ld\n", consumed, consumed_sum);
    if (consumed != ITEMS || consumed_sum != expected) {
        printf("FAILED: expected checksum %ld\n", expected);
        return 1;
    }
    printf("pipeline_sections: ok\n");
    return 0;
}
