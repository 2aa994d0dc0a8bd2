program p
  integer :: n
  n = 0
  MY_TEST_MACRO

!$omp parallel master
  n = n + 1
!$omp end parallel master
  MY_CHECK(n == 1, "n)")
end program p
