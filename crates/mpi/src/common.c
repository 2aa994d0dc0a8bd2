/* What every binding of the POMP MPI library shares: the names pomp gives
 * communicators and requests, what a call moved, initialisation and
 * finalisation (the experiment, the hosts, the clocks, the threads), and
 * the completion of requests. Compiled with the MPI's own C compiler; the
 * wrappers of each binding (generated beside it) call these.
 *
 * Everything here is hidden: the library exports MPI's functions and
 * nothing else. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Ids of communicators, as pomp2::mpi::CommId has them. */
#define COMM_WORLD_ID ((uint64_t)0)
#define COMM_SELF_ID ((uint64_t)1)
#define COMM_UNKNOWN_ID UINT64_MAX

/* Host names as gathered: fixed-size, NUL-padded. */
#define HOST_BYTES 256
/* Ping-pongs per process and clock synchronisation; the shortest wins. */
#define SYNC_ROUNDS 10
#define SYNC_TAG 4242

/* Our own traffic goes over a duplicate of MPI_COMM_WORLD, where it can
 * meet no message of the program's. */
static MPI_Comm own_world = MPI_COMM_NULL;
/* The attribute that holds a communicator's id. */
static int comm_key = MPI_KEYVAL_INVALID;

HIDDEN uint64_t pomp_mpilib_request_key(MPI_Request request)
{
    return (uint64_t)(uintptr_t)request;
}

HIDDEN uint64_t pomp_mpilib_comm_id(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD)
        return COMM_WORLD_ID;
    if (comm == MPI_COMM_SELF)
        return COMM_SELF_ID;
    if (comm == MPI_COMM_NULL || comm_key == MPI_KEYVAL_INVALID)
        return COMM_UNKNOWN_ID;
    void *value = NULL;
    int found = 0;
    PMPI_Comm_get_attr(comm, comm_key, &value, &found);
    return found ? (uint64_t)(uintptr_t)value : COMM_UNKNOWN_ID;
}

static uint64_t type_bytes(int count, MPI_Datatype type)
{
    MPI_Count size = 0;
    if (count <= 0 || type == MPI_DATATYPE_NULL)
        return 0;
    PMPI_Type_size_x(type, &size);
    return size > 0 ? (uint64_t)count * (uint64_t)size : 0;
}

/* The bytes a completed receive took. */
static uint64_t status_bytes(const MPI_Status *status)
{
    MPI_Count count = 0;
    PMPI_Get_elements_x(status, MPI_BYTE, &count);
    return count > 0 && count != MPI_UNDEFINED ? (uint64_t)count : 0;
}

static int64_t monotonic_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static int thread_level_code(int level)
{
    if (level == MPI_THREAD_MULTIPLE)
        return 3;
    if (level == MPI_THREAD_SERIALIZED)
        return 2;
    if (level == MPI_THREAD_FUNNELED)
        return 1;
    return 0;
}

/* ---- point-to-point ---------------------------------------------------- */

HIDDEN void pomp_mpilib_sent(MPI_Comm comm, int peer, int tag, int count,
                             MPI_Datatype type)
{
    if (peer == MPI_PROC_NULL)
        return;
    pomp_mpi_send(pomp_mpilib_comm_id(comm), peer, tag, type_bytes(count, type));
}

HIDDEN void pomp_mpilib_sending(MPI_Comm comm, int peer, int tag, int count,
                                MPI_Datatype type, MPI_Request request)
{
    if (peer == MPI_PROC_NULL)
        return;
    pomp_mpi_isend(pomp_mpilib_comm_id(comm), peer, tag, type_bytes(count, type),
                   pomp_mpilib_request_key(request));
}

HIDDEN void pomp_mpilib_received(MPI_Comm comm, const MPI_Status *status)
{
    if (status->MPI_SOURCE == MPI_PROC_NULL || status->MPI_SOURCE < 0)
        return;
    pomp_mpi_recv(pomp_mpilib_comm_id(comm), status->MPI_SOURCE, status->MPI_TAG,
                  status_bytes(status));
}

HIDDEN void pomp_mpilib_receiving(MPI_Comm comm, MPI_Request request)
{
    pomp_mpi_irecv(pomp_mpilib_comm_id(comm), pomp_mpilib_request_key(request));
}

/* The request known by `key` completed with `status`. */
static void completed(uint64_t key, const MPI_Status *status)
{
    int cancelled = 0;
    PMPI_Test_cancelled(status, &cancelled);
    pomp_mpi_request_completed(key, status->MPI_SOURCE, status->MPI_TAG,
                               status_bytes(status), cancelled);
}

/* Keys of requests, saved before a completion call replaces completed
 * requests with MPI_REQUEST_NULL; on the stack when few. */
#define FEW 32
typedef struct {
    uint64_t few[FEW];
    uint64_t *keys;
} saved_keys;

static void save_keys(saved_keys *saved, int count, const MPI_Request *requests)
{
    saved->keys = count <= FEW ? saved->few : malloc(sizeof(uint64_t) * (size_t)count);
    for (int i = 0; saved->keys && i < count; i++)
        saved->keys[i] = pomp_mpilib_request_key(requests[i]);
}

static void drop_keys(saved_keys *saved)
{
    if (saved->keys != saved->few)
        free(saved->keys);
}

/* Statuses to complete with where the program ignores them. */
typedef struct {
    MPI_Status few[FEW];
    MPI_Status *statuses;
} own_statuses;

static MPI_Status *statuses_for(own_statuses *own, int count, MPI_Status *given)
{
    if (given != MPI_STATUSES_IGNORE)
        return given;
    own->statuses =
        count <= FEW ? own->few : malloc(sizeof(MPI_Status) * (size_t)(count > 0 ? count : 1));
    return own->statuses;
}

static void drop_statuses(own_statuses *own, MPI_Status *used)
{
    if (used == own->statuses && used != own->few)
        free(used);
}

HIDDEN int pomp_mpilib_c_wait(MPI_Request *request, MPI_Status *status)
{
    MPI_Status own;
    MPI_Status *used = status == MPI_STATUS_IGNORE ? &own : status;
    uint64_t key = pomp_mpilib_request_key(*request);
    int result = PMPI_Wait(request, used);
    if (result == MPI_SUCCESS)
        completed(key, used);
    return result;
}

HIDDEN int pomp_mpilib_c_test(MPI_Request *request, int *flag, MPI_Status *status)
{
    MPI_Status own;
    MPI_Status *used = status == MPI_STATUS_IGNORE ? &own : status;
    uint64_t key = pomp_mpilib_request_key(*request);
    int result = PMPI_Test(request, flag, used);
    if (result == MPI_SUCCESS) {
        if (*flag)
            completed(key, used);
        else
            pomp_mpi_request_tested(key);
    }
    return result;
}

HIDDEN int pomp_mpilib_c_waitall(int count, MPI_Request requests[], MPI_Status *statuses)
{
    saved_keys saved;
    own_statuses own = {.statuses = NULL};
    MPI_Status *used = statuses_for(&own, count, statuses);
    save_keys(&saved, count, requests);
    int result = PMPI_Waitall(count, requests, used);
    if (result == MPI_SUCCESS && saved.keys && used)
        for (int i = 0; i < count; i++)
            completed(saved.keys[i], &used[i]);
    drop_keys(&saved);
    drop_statuses(&own, used);
    return result;
}

HIDDEN int pomp_mpilib_c_testall(int count, MPI_Request requests[], int *flag,
                                 MPI_Status statuses[])
{
    saved_keys saved;
    own_statuses own = {.statuses = NULL};
    MPI_Status *used = statuses_for(&own, count, statuses);
    save_keys(&saved, count, requests);
    int result = PMPI_Testall(count, requests, flag, used);
    if (result == MPI_SUCCESS && saved.keys && used)
        for (int i = 0; i < count; i++) {
            if (*flag)
                completed(saved.keys[i], &used[i]);
            else
                pomp_mpi_request_tested(saved.keys[i]);
        }
    drop_keys(&saved);
    drop_statuses(&own, used);
    return result;
}

HIDDEN int pomp_mpilib_c_waitany(int count, MPI_Request requests[], int *index,
                                 MPI_Status *status)
{
    saved_keys saved;
    MPI_Status own;
    MPI_Status *used = status == MPI_STATUS_IGNORE ? &own : status;
    save_keys(&saved, count, requests);
    int result = PMPI_Waitany(count, requests, index, used);
    if (result == MPI_SUCCESS && saved.keys && *index != MPI_UNDEFINED)
        completed(saved.keys[*index], used);
    drop_keys(&saved);
    return result;
}

HIDDEN int pomp_mpilib_c_testany(int count, MPI_Request requests[], int *index, int *flag,
                                 MPI_Status *status)
{
    saved_keys saved;
    MPI_Status own;
    MPI_Status *used = status == MPI_STATUS_IGNORE ? &own : status;
    save_keys(&saved, count, requests);
    int result = PMPI_Testany(count, requests, index, flag, used);
    if (result == MPI_SUCCESS && saved.keys) {
        if (*flag && *index != MPI_UNDEFINED)
            completed(saved.keys[*index], used);
        else if (!*flag)
            for (int i = 0; i < count; i++)
                pomp_mpi_request_tested(saved.keys[i]);
    }
    drop_keys(&saved);
    return result;
}

/* Waitsome and Testsome: `test` says which. */
static int some(int test, int incount, MPI_Request requests[], int *outcount, int indices[],
                MPI_Status statuses[])
{
    saved_keys saved;
    own_statuses own = {.statuses = NULL};
    MPI_Status *used = statuses_for(&own, incount, statuses);
    save_keys(&saved, incount, requests);
    int result = test ? PMPI_Testsome(incount, requests, outcount, indices, used)
                      : PMPI_Waitsome(incount, requests, outcount, indices, used);
    if (result == MPI_SUCCESS && saved.keys && used && *outcount != MPI_UNDEFINED) {
        for (int i = 0; i < *outcount; i++)
            completed(saved.keys[indices[i]], &used[i]);
        if (test && *outcount == 0)
            for (int i = 0; i < incount; i++)
                pomp_mpi_request_tested(saved.keys[i]);
    }
    drop_keys(&saved);
    drop_statuses(&own, used);
    return result;
}

HIDDEN int pomp_mpilib_c_waitsome(int incount, MPI_Request requests[], int *outcount,
                                  int indices[], MPI_Status statuses[])
{
    return some(0, incount, requests, outcount, indices, statuses);
}

HIDDEN int pomp_mpilib_c_testsome(int incount, MPI_Request requests[], int *outcount,
                                  int indices[], MPI_Status statuses[])
{
    return some(1, incount, requests, outcount, indices, statuses);
}

HIDDEN int pomp_mpilib_c_request_free(MPI_Request *request)
{
    uint64_t key = pomp_mpilib_request_key(*request);
    int result = PMPI_Request_free(request);
    if (result == MPI_SUCCESS)
        pomp_mpi_request_freed(key);
    return result;
}

/* ---- collectives ------------------------------------------------------ */

static void collective_done(int operation, MPI_Comm comm, int root, uint64_t sent,
                            uint64_t received)
{
    pomp_mpi_collective_end((uint32_t)operation, pomp_mpilib_comm_id(comm), root, sent,
                            received);
}

typedef struct {
    int me;
    int n;
} place;

static place where(MPI_Comm comm)
{
    place p = {0, 1};
    PMPI_Comm_rank(comm, &p.me);
    PMPI_Comm_size(comm, &p.n);
    return p;
}

/* The sum of counts[i] over every rank but `except`. */
static uint64_t others(const int counts[], int n, int except)
{
    uint64_t sum = 0;
    for (int i = 0; counts && i < n; i++)
        if (i != except && counts[i] > 0)
            sum += (uint64_t)counts[i];
    return sum;
}

/* The bytes each operation moves are as pomp2::trace::Collective defines
 * them: between this rank and the others, as the operation's definition
 * moves the data. */

HIDDEN void pomp_mpilib_barrier_done(MPI_Comm comm)
{
    collective_done(POMP_MPI_BARRIER, comm, -1, 0, 0);
}

HIDDEN void pomp_mpilib_bcast_done(MPI_Comm comm, int count, MPI_Datatype type, int root)
{
    place p = where(comm);
    uint64_t bytes = type_bytes(count, type);
    if (p.me == root)
        collective_done(POMP_MPI_BCAST, comm, root, bytes * (uint64_t)(p.n - 1), 0);
    else
        collective_done(POMP_MPI_BCAST, comm, root, 0, bytes);
}

HIDDEN void pomp_mpilib_gather_done(MPI_Comm comm, int scount, MPI_Datatype stype, int rcount,
                                    MPI_Datatype rtype, int root)
{
    place p = where(comm);
    if (p.me == root)
        collective_done(POMP_MPI_GATHER, comm, root, 0,
                        type_bytes(rcount, rtype) * (uint64_t)(p.n - 1));
    else
        collective_done(POMP_MPI_GATHER, comm, root, type_bytes(scount, stype), 0);
}

HIDDEN void pomp_mpilib_gatherv_done(MPI_Comm comm, int scount, MPI_Datatype stype,
                                     const int rcounts[], MPI_Datatype rtype, int root)
{
    place p = where(comm);
    if (p.me == root)
        collective_done(POMP_MPI_GATHERV, comm, root, 0,
                        type_bytes(1, rtype) * others(rcounts, p.n, root));
    else
        collective_done(POMP_MPI_GATHERV, comm, root, type_bytes(scount, stype), 0);
}

HIDDEN void pomp_mpilib_scatter_done(MPI_Comm comm, int scount, MPI_Datatype stype, int rcount,
                                     MPI_Datatype rtype, int root)
{
    place p = where(comm);
    if (p.me == root)
        collective_done(POMP_MPI_SCATTER, comm, root,
                        type_bytes(scount, stype) * (uint64_t)(p.n - 1), 0);
    else
        collective_done(POMP_MPI_SCATTER, comm, root, 0, type_bytes(rcount, rtype));
}

HIDDEN void pomp_mpilib_scatterv_done(MPI_Comm comm, const int scounts[], MPI_Datatype stype,
                                      int rcount, MPI_Datatype rtype, int root)
{
    place p = where(comm);
    if (p.me == root)
        collective_done(POMP_MPI_SCATTERV, comm, root,
                        type_bytes(1, stype) * others(scounts, p.n, root), 0);
    else
        collective_done(POMP_MPI_SCATTERV, comm, root, 0, type_bytes(rcount, rtype));
}

/* All-gather and all-to-all: the receive side's count and type say what
 * each part is, in place or not (MPI requires the send side to match). */
HIDDEN void pomp_mpilib_allgather_done(MPI_Comm comm, int rcount, MPI_Datatype rtype)
{
    place p = where(comm);
    uint64_t bytes = type_bytes(rcount, rtype) * (uint64_t)(p.n - 1);
    collective_done(POMP_MPI_ALLGATHER, comm, -1, bytes, bytes);
}

HIDDEN void pomp_mpilib_allgatherv_done(MPI_Comm comm, const int rcounts[], MPI_Datatype rtype)
{
    place p = where(comm);
    uint64_t part = rcounts ? type_bytes(rcounts[p.me], rtype) : 0;
    collective_done(POMP_MPI_ALLGATHERV, comm, -1, part * (uint64_t)(p.n - 1),
                    type_bytes(1, rtype) * others(rcounts, p.n, p.me));
}

HIDDEN void pomp_mpilib_alltoall_done(MPI_Comm comm, int rcount, MPI_Datatype rtype)
{
    place p = where(comm);
    uint64_t bytes = type_bytes(rcount, rtype) * (uint64_t)(p.n - 1);
    collective_done(POMP_MPI_ALLTOALL, comm, -1, bytes, bytes);
}

HIDDEN void pomp_mpilib_alltoallv_done(MPI_Comm comm, int in_place, const int scounts[],
                                       MPI_Datatype stype, const int rcounts[],
                                       MPI_Datatype rtype)
{
    place p = where(comm);
    uint64_t received = type_bytes(1, rtype) * others(rcounts, p.n, p.me);
    uint64_t sent = in_place ? received : type_bytes(1, stype) * others(scounts, p.n, p.me);
    collective_done(POMP_MPI_ALLTOALLV, comm, -1, sent, received);
}

HIDDEN void pomp_mpilib_reduce_done(MPI_Comm comm, int count, MPI_Datatype type, int root)
{
    place p = where(comm);
    uint64_t bytes = type_bytes(count, type);
    if (p.me == root)
        collective_done(POMP_MPI_REDUCE, comm, root, 0, bytes * (uint64_t)(p.n - 1));
    else
        collective_done(POMP_MPI_REDUCE, comm, root, bytes, 0);
}

HIDDEN void pomp_mpilib_allreduce_done(MPI_Comm comm, int count, MPI_Datatype type)
{
    place p = where(comm);
    uint64_t bytes = type_bytes(count, type) * (uint64_t)(p.n - 1);
    collective_done(POMP_MPI_ALLREDUCE, comm, -1, bytes, bytes);
}

HIDDEN void pomp_mpilib_reduce_scatter_done(MPI_Comm comm, const int rcounts[],
                                            MPI_Datatype type)
{
    place p = where(comm);
    uint64_t own = rcounts ? type_bytes(rcounts[p.me], type) : 0;
    collective_done(POMP_MPI_REDUCE_SCATTER, comm, -1,
                    type_bytes(1, type) * others(rcounts, p.n, p.me),
                    own * (uint64_t)(p.n - 1));
}

HIDDEN void pomp_mpilib_reduce_scatter_block_done(MPI_Comm comm, int rcount, MPI_Datatype type)
{
    place p = where(comm);
    uint64_t bytes = type_bytes(rcount, type) * (uint64_t)(p.n - 1);
    collective_done(POMP_MPI_REDUCE_SCATTER_BLOCK, comm, -1, bytes, bytes);
}

static void prefix_done(int operation, MPI_Comm comm, int count, MPI_Datatype type)
{
    place p = where(comm);
    uint64_t bytes = type_bytes(count, type);
    collective_done(operation, comm, -1, bytes * (uint64_t)(p.n - 1 - p.me),
                    bytes * (uint64_t)p.me);
}

HIDDEN void pomp_mpilib_scan_done(MPI_Comm comm, int count, MPI_Datatype type)
{
    prefix_done(POMP_MPI_SCAN, comm, count, type);
}

HIDDEN void pomp_mpilib_exscan_done(MPI_Comm comm, int count, MPI_Datatype type)
{
    prefix_done(POMP_MPI_EXSCAN, comm, count, type);
}

/* ---- communicators ----------------------------------------------------- */

/* A communicator was made from `parent`: its rank 0 names it and tells the
 * others, and defines it with its members' world ranks. */
HIDDEN void pomp_mpilib_comm_made(MPI_Comm parent, MPI_Comm made)
{
    if (made == MPI_COMM_NULL || comm_key == MPI_KEYVAL_INVALID)
        return;
    int inter = 0;
    PMPI_Comm_test_inter(made, &inter);
    if (inter)
        return;
    int rank = 0, size = 0;
    PMPI_Comm_rank(made, &rank);
    PMPI_Comm_size(made, &size);
    uint64_t id = rank == 0 ? pomp_mpi_comm_new_id() : 0;
    PMPI_Bcast(&id, 1, MPI_UINT64_T, 0, made);
    PMPI_Comm_set_attr(made, comm_key, (void *)(uintptr_t)id);
    if (rank != 0)
        return;
    int *ranks = malloc(sizeof(int) * (size_t)size);
    int *world_ranks = malloc(sizeof(int) * (size_t)size);
    if (ranks && world_ranks) {
        MPI_Group group, world_group;
        PMPI_Comm_group(made, &group);
        PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
        for (int i = 0; i < size; i++)
            ranks[i] = i;
        PMPI_Group_translate_ranks(group, size, ranks, world_group, world_ranks);
        PMPI_Group_free(&group);
        PMPI_Group_free(&world_group);
        pomp_mpi_comm_define(id, pomp_mpilib_comm_id(parent), (const int32_t *)world_ranks,
                             size);
    }
    free(ranks);
    free(world_ranks);
}

/* ---- initialisation and finalisation ---------------------------------- */

/* The kernel's boot id: processes that share it read one CLOCK_MONOTONIC. */
static void boot_id(char id[64])
{
    memset(id, 0, 64);
    FILE *file = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!file)
        return;
    if (!fgets(id, 64, file))
        memset(id, 0, 64);
    fclose(file);
}

/* Each process's clock against rank 0's: ping-pongs with rank 0, one
 * process after another, the shortest round trip taken. */
static void synchronize_clocks(int rank, int size)
{
    char own_boot[64], root_boot[64];
    boot_id(own_boot);
    memcpy(root_boot, own_boot, sizeof root_boot);
    PMPI_Bcast(root_boot, sizeof root_boot, MPI_CHAR, 0, own_world);
    int same_clock = own_boot[0] != 0 && memcmp(own_boot, root_boot, sizeof own_boot) == 0;
    if (rank == 0) {
        for (int peer = 1; peer < size; peer++)
            for (int round = 0; round < SYNC_ROUNDS; round++) {
                PMPI_Recv(NULL, 0, MPI_BYTE, peer, SYNC_TAG, own_world, MPI_STATUS_IGNORE);
                int64_t now = monotonic_ns();
                PMPI_Send(&now, 1, MPI_INT64_T, peer, SYNC_TAG, own_world);
            }
        pomp_mpi_clock_offset(monotonic_ns(), 0, 0, 1);
        return;
    }
    int64_t best = INT64_MAX, offset = 0, at = monotonic_ns();
    for (int round = 0; round < SYNC_ROUNDS; round++) {
        int64_t root_time = 0, sent = monotonic_ns();
        PMPI_Send(NULL, 0, MPI_BYTE, 0, SYNC_TAG, own_world);
        PMPI_Recv(&root_time, 1, MPI_INT64_T, 0, SYNC_TAG, own_world, MPI_STATUS_IGNORE);
        int64_t back = monotonic_ns();
        if (back - sent < best) {
            best = back - sent;
            at = sent + (back - sent) / 2;
            offset = root_time - at;
        }
    }
    pomp_mpi_clock_offset(at, offset, best / 2, same_clock);
}

/* Rank 0 tells the others the experiment it writes. */
static void share_experiment(int rank)
{
    char directory[4096];
    unsigned long long length = 0;
    if (rank == 0) {
        length = pomp_mpi_experiment(directory, sizeof directory);
        if (length >= sizeof directory)
            length = 0;
    }
    PMPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, own_world);
    if (length == 0)
        return;
    PMPI_Bcast(directory, (int)length, MPI_CHAR, 0, own_world);
    if (rank != 0)
        pomp_mpi_join_experiment(directory, (size_t)length);
}

static void gather_hosts(int rank, int size)
{
    char name[HOST_BYTES];
    memset(name, 0, sizeof name);
    gethostname(name, sizeof name - 1);
    char *all = rank == 0 ? calloc((size_t)size, HOST_BYTES) : NULL;
    PMPI_Gather(name, HOST_BYTES, MPI_CHAR, all, HOST_BYTES, MPI_CHAR, 0, own_world);
    if (rank == 0 && all)
        pomp_mpi_hosts(all, HOST_BYTES, size);
    free(all);
}

/* MPI_Init or MPI_Init_thread returned; `requested` is -1 after MPI_Init,
 * whose thread level MPI says. */
HIDDEN void pomp_mpilib_started(int requested, int provided)
{
    int rank = 0, size = 1, length = 0;
    if (requested < 0)
        PMPI_Query_thread(&provided);
    char library[MPI_MAX_LIBRARY_VERSION_STRING + 1];
    memset(library, 0, sizeof library);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    PMPI_Get_library_version(library, &length);
    library[strcspn(library, "\n,")] = 0;
    pomp_mpi_initialized(rank, size, requested < 0 ? -1 : thread_level_code(requested),
                         thread_level_code(provided), library);
    PMPI_Comm_dup(MPI_COMM_WORLD, &own_world);
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &comm_key, NULL);
    share_experiment(rank);
    gather_hosts(rank, size);
    synchronize_clocks(rank, size);
}

/* MPI_Finalize is about to finalise. */
HIDDEN void pomp_mpilib_finishing(void)
{
    if (own_world == MPI_COMM_NULL)
        return;
    int rank = 0, size = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    synchronize_clocks(rank, size);
    uint32_t threads = pomp_mpi_threads();
    uint32_t *all = rank == 0 ? calloc((size_t)size, sizeof(uint32_t)) : NULL;
    PMPI_Gather(&threads, 1, MPI_UINT32_T, all, 1, MPI_UINT32_T, 0, own_world);
    if (rank == 0 && all)
        pomp_mpi_threads_per_rank(all, size);
    free(all);
    PMPI_Comm_free(&own_world);
    PMPI_Comm_free_keyval(&comm_key);
    comm_key = MPI_KEYVAL_INVALID;
}
