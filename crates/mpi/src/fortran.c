/* The Fortran bindings of the completion functions (mpif.h and `use mpi`,
 * and `use mpi_f08`, whose types hold the same integers): the Fortran
 * handles and statuses converted to C, the C binding's completion
 * (common.c), and the results converted back, as Open MPI's own Fortran
 * bindings convert them (a status only where the program does not ignore
 * it, indices counted from 1, flags as Fortran's .true.). Each Fortran
 * object has its own copy. */

#ifdef MPI_F_STATUS_SIZE
#define F_STATUS_SIZE MPI_F_STATUS_SIZE
#else
#define F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#endif
#define F_TRUE 1

static void f_result(MPI_Fint *ierr, int result)
{
    if (ierr)
        *ierr = (MPI_Fint)result;
}

static int f_ok(const MPI_Fint *ierr)
{
    return ierr == NULL || *ierr == MPI_SUCCESS;
}

/* Requests and statuses of a call on `count` requests. */
typedef struct {
    int count;
    MPI_Request *requests;
    MPI_Status *statuses;
} c_arrays;

static int c_arrays_from(c_arrays *c, int count, const MPI_Fint *requests)
{
    c->count = count > 0 ? count : 0;
    size_t n = c->count > 0 ? (size_t)c->count : 1;
    c->requests = malloc(sizeof(MPI_Request) * n);
    c->statuses = malloc(sizeof(MPI_Status) * n);
    if (!c->requests || !c->statuses)
        return 0;
    for (int i = 0; i < c->count; i++)
        c->requests[i] = PMPI_Request_f2c(requests[i]);
    return 1;
}

/* The requests back, and the first `statuses` statuses where wanted. */
static void c_arrays_to(const c_arrays *c, MPI_Fint *requests, int statuses, MPI_Fint *f_statuses)
{
    for (int i = 0; i < c->count; i++)
        requests[i] = PMPI_Request_c2f(c->requests[i]);
    if (f_statuses != MPI_F_STATUSES_IGNORE)
        for (int i = 0; i < statuses; i++)
            PMPI_Status_c2f(&c->statuses[i], &f_statuses[i * F_STATUS_SIZE]);
}

static void c_arrays_drop(c_arrays *c)
{
    free(c->requests);
    free(c->statuses);
}

static void f_status_out(const MPI_Status *c_status, MPI_Fint *status)
{
    if (status != MPI_F_STATUS_IGNORE)
        PMPI_Status_c2f(c_status, status);
}

static int f_index(int c_index)
{
    return c_index == MPI_UNDEFINED ? c_index : c_index + 1;
}

static void f_wait(MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Request c_request = PMPI_Request_f2c(*request);
    MPI_Status c_status;
    int result = pomp_mpilib_c_wait(&c_request, &c_status);
    if (result == MPI_SUCCESS) {
        *request = PMPI_Request_c2f(c_request);
        f_status_out(&c_status, status);
    }
    f_result(ierr, result);
}

static void f_test(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Request c_request = PMPI_Request_f2c(*request);
    MPI_Status c_status;
    int c_flag = 0;
    int result = pomp_mpilib_c_test(&c_request, &c_flag, &c_status);
    if (result == MPI_SUCCESS) {
        *flag = c_flag ? F_TRUE : 0;
        if (c_flag) {
            *request = PMPI_Request_c2f(c_request);
            f_status_out(&c_status, status);
        }
    }
    f_result(ierr, result);
}

static void f_waitall(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *statuses, MPI_Fint *ierr)
{
    c_arrays c;
    int result = MPI_ERR_NO_MEM;
    if (c_arrays_from(&c, *count, requests)) {
        result = pomp_mpilib_c_waitall(c.count, c.requests, c.statuses);
        if (result == MPI_SUCCESS)
            c_arrays_to(&c, requests, c.count, statuses);
    }
    c_arrays_drop(&c);
    f_result(ierr, result);
}

static void f_testall(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag,
                      MPI_Fint *statuses, MPI_Fint *ierr)
{
    c_arrays c;
    int result = MPI_ERR_NO_MEM, c_flag = 0;
    if (c_arrays_from(&c, *count, requests)) {
        result = pomp_mpilib_c_testall(c.count, c.requests, &c_flag, c.statuses);
        if (result == MPI_SUCCESS) {
            *flag = c_flag ? F_TRUE : 0;
            if (c_flag)
                c_arrays_to(&c, requests, c.count, statuses);
        }
    }
    c_arrays_drop(&c);
    f_result(ierr, result);
}

/* Waitany and Testany: `flag` is null for Waitany, which always completes
 * one request or finds none active. */
static void f_any(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag,
                  MPI_Fint *status, MPI_Fint *ierr)
{
    c_arrays c;
    int result = MPI_ERR_NO_MEM, c_index = MPI_UNDEFINED, c_flag = 1;
    if (c_arrays_from(&c, *count, requests)) {
        result = flag ? pomp_mpilib_c_testany(c.count, c.requests, &c_index, &c_flag,
                                              &c.statuses[0])
                      : pomp_mpilib_c_waitany(c.count, c.requests, &c_index, &c.statuses[0]);
        if (result == MPI_SUCCESS) {
            c_arrays_to(&c, requests, 0, MPI_F_STATUSES_IGNORE);
            *index = f_index(c_index);
            if (flag)
                *flag = c_flag ? F_TRUE : 0;
            if (c_flag && c_index != MPI_UNDEFINED)
                f_status_out(&c.statuses[0], status);
        }
    }
    c_arrays_drop(&c);
    f_result(ierr, result);
}

static void f_waitany(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index,
                      MPI_Fint *status, MPI_Fint *ierr)
{
    f_any(count, requests, index, NULL, status, ierr);
}

static void f_testany(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag,
                      MPI_Fint *status, MPI_Fint *ierr)
{
    f_any(count, requests, index, flag, status, ierr);
}

/* Waitsome and Testsome: `test` says which. */
static void f_some(int test, MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                   MPI_Fint *indices, MPI_Fint *statuses, MPI_Fint *ierr)
{
    c_arrays c;
    int result = MPI_ERR_NO_MEM, c_outcount = 0;
    int *c_indices = malloc(sizeof(int) * (size_t)(*incount > 0 ? *incount : 1));
    if (c_indices && c_arrays_from(&c, *incount, requests)) {
        result = test ? pomp_mpilib_c_testsome(c.count, c.requests, &c_outcount, c_indices,
                                               c.statuses)
                      : pomp_mpilib_c_waitsome(c.count, c.requests, &c_outcount, c_indices,
                                               c.statuses);
        if (result == MPI_SUCCESS) {
            int done = c_outcount == MPI_UNDEFINED ? 0 : c_outcount;
            c_arrays_to(&c, requests, done, statuses);
            *outcount = c_outcount;
            for (int i = 0; i < done; i++)
                indices[i] = c_indices[i] + 1;
        }
    }
    if (c_indices)
        c_arrays_drop(&c);
    free(c_indices);
    f_result(ierr, result);
}

static void f_waitsome(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                       MPI_Fint *indices, MPI_Fint *statuses, MPI_Fint *ierr)
{
    f_some(0, incount, requests, outcount, indices, statuses, ierr);
}

static void f_testsome(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                       MPI_Fint *indices, MPI_Fint *statuses, MPI_Fint *ierr)
{
    f_some(1, incount, requests, outcount, indices, statuses, ierr);
}

static void f_request_free(MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request c_request = PMPI_Request_f2c(*request);
    int result = pomp_mpilib_c_request_free(&c_request);
    if (result == MPI_SUCCESS)
        *request = PMPI_Request_c2f(c_request);
    f_result(ierr, result);
}

/* Whether a Fortran buffer is MPI_IN_PLACE (Open MPI's common block). */
extern int mpi_fortran_in_place_;

static int f_in_place(const void *buffer)
{
    return buffer == (const void *)&mpi_fortran_in_place_;
}
