! User regions left by jumps other than `return`: `cycle` and `exit` of
! the loop around the region, `cycle` and `exit` naming an outer loop,
! `exit` of a named block, `go to` a label past the region and an
! arithmetic `if`. Jumps that stay inside (`exit` of an inner loop, `go to`
! a label inside) leave the region open. The checking library rejects a
! region left open or closed twice.
module jumps
  implicit none
contains
  subroutine loops(total)
    integer, intent(inout) :: total
    integer :: i, j, k
    outer: do i = 1, 6
      do j = 1, 4
!$pomp inst begin(inner)
        if (j == 2) cycle
        if (i == 5 .and. j == 3) cycle outer
        if (i == 6) exit outer
        if (j == 4) exit
        total = total + i * j
        do k = 1, 10
          if (k > 2) exit
          total = total + 1
        end do
        if (total > 100000) go to 10
        total = total + 1
10      continue
!$pomp inst end(inner)
      end do
    end do outer
  end subroutine loops

  subroutine with_goto(n, t)
    integer, intent(in) :: n
    integer, intent(inout) :: t
!$pomp inst begin(goto_out)
    if (n < 0) go to 20
    t = t + n
!$pomp inst end(goto_out)
    return
20  t = t - 1
  end subroutine with_goto

  subroutine with_block(t)
    integer, intent(inout) :: t
    named: block
!$pomp inst begin(in_block)
      if (t > 0) exit named
      t = -t
!$pomp inst end(in_block)
    end block named
  end subroutine with_block

  subroutine arithmetic(n, t)
    integer, intent(in) :: n
    integer, intent(inout) :: t
!$pomp inst begin(arith)
    t = t * 2
    if (n) 30, 40, 50
!$pomp inst end(arith)
30  t = t + 1
    return
40  t = t + 2
    return
50  t = t + 3
  end subroutine arithmetic
end module jumps

program user_region_jumps
  use jumps
  implicit none
  integer :: n, total, sums(8)
!$omp parallel do private(total)
  do n = 1, 8
    total = n
    call loops(total)
    call with_goto(3, total)
    call with_goto(-3, total)
    call with_block(total)
    call arithmetic(mod(n, 3) - 1, total)
    sums(n) = total
  end do
!$omp end parallel do
  print *, 'sums', sums
end program user_region_jumps
