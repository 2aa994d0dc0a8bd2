subroutine s
  x = = 1
end subroutine
subroutine t
  integer y
!$omp barrier
end subroutine
