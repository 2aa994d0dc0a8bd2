subroutine s(x)
  integer :: x
!$omp parallel private(x)
!$omp single
  x = 1
!$omp end single copyprivate(x)
!$omp critical (upd)
  x = x + 1
!$omp end critical (UPD)
!$omp master
  x = 2
!$omp end master
!$omp barrier
!$omp flush(x)
!$omp taskwait
!$omp end parallel
end subroutine
