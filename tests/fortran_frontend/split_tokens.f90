subroutine s(check, a, n)
  integer :: n, i
  logical :: check(n)
  integer(kind=4) :: a(n, 2)
!$omp parallel do
  do i = 1, n
    check(i) = (a(i, 2) == 0) .NEQV. logical_&
  ! a comment line between
&is_zero(a(i, 1)) .and. 12&
&34 > n
  end do
contains
  logical function logical_is_zero(x)
    integer(kind=4), intent(in) :: x
    logical_is_zero = x == 0
  end function logical_is_zero
end subroutine s
