program p
  use iso_fortran_env
!$ use omp_lib
  i = 1
!$ i = omp_get_num_threads()
end program p
