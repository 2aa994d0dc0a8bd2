! A BLOCK construct as a construct's structured block (OpenMP 5.1): its end
! directive may be left out, and the BLOCK may declare variables of its
! own. pomp writes the end directive where it inserts calls around the
! BLOCK, which then is no longer the construct's whole code.
program block_constructs
  use omp_lib
  implicit none
  integer :: total, tasks, guarded
  total = 0
  tasks = 0
  guarded = 0

!$omp parallel
  block
    integer :: mine
    mine = 1
!$omp atomic
    total = total + mine
  end block

!$omp parallel shared(tasks)
  block
!$omp single
    block
      integer :: k
      do k = 1, 4
!$omp task shared(tasks)
        block
!$omp atomic
          tasks = tasks + k
        end block
      end do
    end block
  end block
!$omp end parallel

!$omp parallel
  block
!$omp critical (tally)
    block
      guarded = guarded + 1
    end block
!$omp end critical (tally)
!$omp barrier
!$omp masked
    block
      guarded = guarded + 100
    end block
  end block

  print '(a,1x,l1)', 'total', total >= 1
  print '(a,1x,i0)', 'tasks', tasks
  print '(a,1x,l1)', 'guarded', mod(guarded, 100) >= 1 .and. guarded / 100 == 1
end program block_constructs
