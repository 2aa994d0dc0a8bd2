subroutine s(u)
  integer :: u
  rewind(u)
  continue
!$omp parallel
  flush(u)
!$omp end parallel
end subroutine s
