program p
!$pomp inst init
!$pomp inst begin(phase1)
  x = 1
!$pomp inst end(phase1)
!$omp inst begin(phase2)
!$omp inst end(phase2)
!$omp noinstrument
!P$ call foo()
!$acc kernels
end program
