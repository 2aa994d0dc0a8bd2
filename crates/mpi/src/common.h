/* The library's own functions (common.c) that every binding's wrappers
 * call; hidden, like everything but MPI's functions. */

#define HIDDEN __attribute__((visibility("hidden")))

HIDDEN uint64_t pomp_mpilib_comm_id(MPI_Comm comm);
HIDDEN uint64_t pomp_mpilib_request_key(MPI_Request request);
HIDDEN void pomp_mpilib_started(int requested, int provided);
HIDDEN void pomp_mpilib_finishing(void);
HIDDEN void pomp_mpilib_sent(MPI_Comm comm, int peer, int tag, int count, MPI_Datatype type);
HIDDEN void pomp_mpilib_sending(MPI_Comm comm, int peer, int tag, int count, MPI_Datatype type,
                                MPI_Request request);
HIDDEN void pomp_mpilib_received(MPI_Comm comm, const MPI_Status *status);
HIDDEN void pomp_mpilib_receiving(MPI_Comm comm, MPI_Request request);
HIDDEN void pomp_mpilib_comm_made(MPI_Comm parent, MPI_Comm made);

HIDDEN int pomp_mpilib_c_wait(MPI_Request *request, MPI_Status *status);
HIDDEN int pomp_mpilib_c_waitall(int count, MPI_Request requests[], MPI_Status *statuses);
HIDDEN int pomp_mpilib_c_waitany(int count, MPI_Request requests[], int *index,
                                 MPI_Status *status);
HIDDEN int pomp_mpilib_c_waitsome(int incount, MPI_Request requests[], int *outcount,
                                  int indices[], MPI_Status statuses[]);
HIDDEN int pomp_mpilib_c_test(MPI_Request *request, int *flag, MPI_Status *status);
HIDDEN int pomp_mpilib_c_testall(int count, MPI_Request requests[], int *flag,
                                 MPI_Status statuses[]);
HIDDEN int pomp_mpilib_c_testany(int count, MPI_Request requests[], int *index, int *flag,
                                 MPI_Status *status);
HIDDEN int pomp_mpilib_c_testsome(int incount, MPI_Request requests[], int *outcount,
                                  int indices[], MPI_Status statuses[]);
HIDDEN int pomp_mpilib_c_request_free(MPI_Request *request);

HIDDEN void pomp_mpilib_barrier_done(MPI_Comm comm);
HIDDEN void pomp_mpilib_bcast_done(MPI_Comm comm, int count, MPI_Datatype type, int root);
HIDDEN void pomp_mpilib_gather_done(MPI_Comm comm, int scount, MPI_Datatype stype, int rcount,
                                    MPI_Datatype rtype, int root);
HIDDEN void pomp_mpilib_gatherv_done(MPI_Comm comm, int scount, MPI_Datatype stype,
                                     const int rcounts[], MPI_Datatype rtype, int root);
HIDDEN void pomp_mpilib_scatter_done(MPI_Comm comm, int scount, MPI_Datatype stype, int rcount,
                                     MPI_Datatype rtype, int root);
HIDDEN void pomp_mpilib_scatterv_done(MPI_Comm comm, const int scounts[], MPI_Datatype stype,
                                      int rcount, MPI_Datatype rtype, int root);
HIDDEN void pomp_mpilib_allgather_done(MPI_Comm comm, int rcount, MPI_Datatype rtype);
HIDDEN void pomp_mpilib_allgatherv_done(MPI_Comm comm, const int rcounts[], MPI_Datatype rtype);
HIDDEN void pomp_mpilib_alltoall_done(MPI_Comm comm, int rcount, MPI_Datatype rtype);
HIDDEN void pomp_mpilib_alltoallv_done(MPI_Comm comm, int in_place, const int scounts[],
                                       MPI_Datatype stype, const int rcounts[],
                                       MPI_Datatype rtype);
HIDDEN void pomp_mpilib_reduce_done(MPI_Comm comm, int count, MPI_Datatype type, int root);
HIDDEN void pomp_mpilib_allreduce_done(MPI_Comm comm, int count, MPI_Datatype type);
HIDDEN void pomp_mpilib_reduce_scatter_done(MPI_Comm comm, const int rcounts[],
                                            MPI_Datatype type);
HIDDEN void pomp_mpilib_reduce_scatter_block_done(MPI_Comm comm, int rcount, MPI_Datatype type);
HIDDEN void pomp_mpilib_scan_done(MPI_Comm comm, int count, MPI_Datatype type);
HIDDEN void pomp_mpilib_exscan_done(MPI_Comm comm, int count, MPI_Datatype type);
