! pomp-corpus: regions functions
! Fortran procedures as regions: module, internal and external procedures,
! RETURN (also in a logical IF), alternate returns, recursion, a procedure
! holding an OpenMP construct, and STOP ending the main program.
module mesh
  implicit none
contains
  integer function twice(x)
    integer, intent(in) :: x
    twice = 2 * x
    if (x > 5) return
    twice = twice + 1
  end function twice

  subroutine work(n, s)
    integer, intent(in) :: n
    real, intent(out) :: s
    integer :: i
    s = 0
!$omp parallel do reduction(+:s)
    do i = 1, n
      s = s + real(mod(i, 7))
    end do
!$omp end parallel do
    call inner()
  contains
    subroutine inner()
      s = s + 1
    end subroutine inner
  end subroutine work
end module mesh

subroutine choose(k, *, *)
  integer :: k
  if (k == 1) return 1
  if (k == 2) then
    return 2
  end if
  return
end subroutine choose

recursive integer function fact(n) result(r)
  integer, intent(in) :: n
  if (n <= 1) then
    r = 1
    return
  end if
  r = n * fact(n - 1)
end function fact

program main
  use mesh
  implicit none
  real :: s
  integer :: k, fact
  call work(100, s)
  print *, s, twice(3), twice(7), fact(5)
  do k = 1, 3
    call choose(k, *10, *20)
    print *, 'fell through', k
    cycle
10  print *, 'first', k
    cycle
20  print *, 'second', k
  end do
  if (s > 0) stop
  print *, 'not reached'
end program main
