! Free-form continuations that split a token: a name, a number and an
! operator broken over lines, inside the statements of a parallel region.
program split_tokens
  implicit none
  integer, parameter :: n = 64
  integer(kind=4) :: kind4_array_a(n, 2)
  logical :: logical_check(n), mismatches
  integer :: i, errors
  errors = 0
  do i = 1, n
    kind4_array_a(i, 1) = mod(i, 3)
    kind4_array_a(i, 2) = 0
  end do
!$omp parallel do private(i)
  do i = 1, n
    kind4_array_a(i, 2) = kind4_array_a(i, 1) * 2
  end do
!$omp end parallel do
!$omp parallel shared(logical_check, kind4_array_a) private(i)
!$omp do
  do i = 1, n
    logical_check(i) = (kind4_array_a(i, 2) == 0) .NEQV. logical_&
&check_is_zero(kind4_array_a(i, 1))
  end do
!$omp end do
!$omp end parallel
  mismatches = .false.
  do i = 1, n
    mismatches = mismatches .or. logical_check(i)
  end do
  if (mismatches) errors = errors + 1
  i = 12&
&34
  if (i /= 1234) errors = errors + 1
  print '(a, i0)', 'errors ', errors
  if (errors /= 0) stop 1
  print *, 'split tokens: ok'
contains
  logical function logical_check_is_zero(x)
    integer(kind=4), intent(in) :: x
    logical_check_is_zero = x == 0
  end function logical_check_is_zero
end program split_tokens
