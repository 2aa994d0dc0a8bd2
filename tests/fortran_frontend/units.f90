module m
  implicit none
  integer :: g
  interface
    subroutine ext(x)
      integer :: x
    end subroutine
  end interface
contains
  integer function f(x) result(r)
    use omp_lib
    integer, intent(in) :: x
    type t
      integer :: a
    end type t
    r = x
  end function f
  subroutine host()
    integer :: k
    k = 1
!$omp parallel
    call inner()
!$omp end parallel
  contains
    subroutine inner()
!$omp barrier
    end subroutine inner
  end subroutine host
end module m
submodule (m) sm
contains
  module procedure foo
    x = 1
  end procedure foo
end submodule
