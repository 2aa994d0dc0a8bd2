program p
  use omp_lib
  integer(omp_lock_kind) :: l
  logical :: ok
  call omp_init_lock(l)
  call OMP_Set_Lock(l)
  ok = omp_test_lock(l)
  print *, 'call omp_set_lock(l)' ! call omp_unset_lock(l)
  call omp_unset_lock (l)
  call omp_destroy_lock(l)
  call omp_set_nest_lock(n)
end program
