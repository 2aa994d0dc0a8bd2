! A parallel region left as written (disabled here, or filtered) whose
! constructs are measured: the variables their code uses are declared in
! the subroutine, so the directive is written again with them private.
subroutine s(n)
  integer :: n, i
  !$omp parallel
  !$omp barrier
  !$omp do
  do i = 1, n
  end do
  !$omp end parallel
end subroutine s
