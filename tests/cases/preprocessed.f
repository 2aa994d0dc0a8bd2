# 1 "prog.F"
# 1 "<built-in>"
# 1 "<command-line>"
# 1 "prog.F"
      program prog
      integer i, s
      s = 0
!$omp parallel do

# 10 "prog.F"
!$omp+ reduction(+:s)
      do i = 1, 10
         s = s +
# 15 "prog.F"
     &       i
      end do
!$omp parallel
# 20 "prog.F"
!$omp master
      s = s + 1
!$omp end master
!$omp end parallel
      print *, s
      end
