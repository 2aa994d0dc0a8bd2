! Loop constructs: do with and without `end do`, labelled loops (also
! nested loops sharing one terminal statement), parallel do with and
! without `end parallel do`, simd, collapse, ordered, reductions.
program loops
  use omp_lib
  implicit none
  integer, parameter :: n = 100
  integer :: i, j, total, squares, ordered_sum
  integer :: a(n), b(n, n)
  real :: x(n), dot

  total = 0
!$omp parallel shared(a, b) private(j)
!$omp do
  do i = 1, n
    a(i) = i
  end do
!$omp end do
!$omp do schedule(static)
  do 10 i = 1, n
    b(i, 1) = 2 * i
10 continue
!$omp do collapse(2)
  do 20 i = 1, n
  do 20 j = 2, n
20 b(i, j) = i + j
!$omp end do nowait
!$omp do reduction(+:total)
  do i = 1, n
    total = total + a(i)
  enddo
!$omp end parallel
  if (total /= n * (n + 1) / 2) error stop 1
  if (b(3, 1) /= 6 .or. b(4, 5) /= 9) error stop 2

  squares = 0
!$omp parallel do reduction(+:squares)
  do i = 1, n
    squares = squares + i * i
  end do
  ! no `end parallel do` above: it is optional
  if (squares /= 338350) error stop 3

!$omp parallel do private(j) &
!$omp& shared(b)
  do i = 1, n
    do j = 1, n
      b(i, j) = i - j
    end do
  end do
!$omp end parallel do
  if (b(7, 2) /= 5) error stop 4

  do i = 1, n
    x(i) = real(i)
  end do
  dot = 0.0
!$omp parallel do simd reduction(+:dot)
  do i = 1, n
    dot = dot + x(i) * 2.0
  end do
!$omp end parallel do simd
  if (abs(dot - 10100.0) > 1.0e-3) error stop 5

  ordered_sum = 0
!$omp parallel do ordered
  do i = 1, 10
!$omp ordered
    ordered_sum = ordered_sum * 2 + mod(i, 2)
!$omp end ordered
  end do
  if (ordered_sum /= 682) error stop 6

!$omp simd
  do i = 1, n
    a(i) = a(i) + 1
  end do
  if (a(n) /= n + 1) error stop 7

  print '(a, i0)', 'total = ', total
  print '(a, i0)', 'squares = ', squares
  print '(a, f8.1)', 'dot = ', dot
  print '(a, i0)', 'ordered = ', ordered_sum
end program loops
