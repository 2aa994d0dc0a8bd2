! particles.f90 -- a small Lennard-Jones molecular dynamics code.
!
! Particles sit in a periodic cubic box and interact through a truncated
! Lennard-Jones potential.  Forces use a linked-cell list; time integration
! is velocity Verlet with an optional Berendsen thermostat.  The force loop
! and the diagnostics are parallelised with OpenMP.

module md_kinds
  implicit none
  integer, parameter :: dp = selected_real_kind(15, 307)
  integer, parameter :: i8 = selected_int_kind(18)
end module md_kinds

module particle_system
  use md_kinds
  !$ use omp_lib
  implicit none
  private

  integer, parameter, public :: BC_PERIODIC = 1, BC_REFLECT = 2, BC_OPEN = 3
  integer, parameter :: NBINS = 50

  type, public :: particle_set
    integer :: n = 0
    real(dp) :: box = 0.0_dp
    real(dp), allocatable :: pos(:,:), vel(:,:), frc(:,:)
    real(dp), allocatable :: mass(:)
    integer, allocatable :: species(:)
  end type particle_set

  type, public :: cell_list
    integer :: ncell = 0
    real(dp) :: width = 0.0_dp
    integer, allocatable :: head(:,:,:)
    integer, allocatable :: next(:)
  end type cell_list

  type, public :: md_params
    real(dp) :: dt = 0.005_dp
    real(dp) :: cutoff = 2.5_dp
    real(dp) :: temperature = 1.2_dp
    real(dp) :: tau_thermo = 0.5_dp
    integer :: boundary = BC_PERIODIC
    integer :: nsteps = 500
    integer :: report_every = 50
    logical :: thermostat = .true.
  end type md_params

  public :: create_lattice, build_cells, compute_forces, verlet_step
  public :: kinetic_energy, temperature_of, radial_histogram, destroy_set

contains

  subroutine create_lattice(ps, ncube, density, seed)
    type(particle_set), intent(inout) :: ps
    integer, intent(in) :: ncube, seed
    real(dp), intent(in) :: density
    integer :: i, j, k, m, idx
    real(dp) :: a, shift(3, 4), vsum(3)
    integer(i8) :: state

    ps%n = 4 * ncube**3
    ps%box = (real(ps%n, dp) / density)**(1.0_dp / 3.0_dp)
    allocate(ps%pos(3, ps%n), ps%vel(3, ps%n), ps%frc(3, ps%n))
    allocate(ps%mass(ps%n), ps%species(ps%n))

    ! face-centred cubic basis
    shift(:, 1) = [0.0_dp, 0.0_dp, 0.0_dp]
    shift(:, 2) = [0.5_dp, 0.5_dp, 0.0_dp]
    shift(:, 3) = [0.5_dp, 0.0_dp, 0.5_dp]
    shift(:, 4) = [0.0_dp, 0.5_dp, 0.5_dp]
    a = ps%box / ncube

    idx = 0
    do k = 0, ncube - 1
      do j = 0, ncube - 1
        do i = 0, ncube - 1
          do m = 1, 4
            idx = idx + 1
            ps%pos(:, idx) = a * ([real(i, dp), real(j, dp), real(k, dp)] + shift(:, m))
          end do
        end do
      end do
    end do

    state = int(seed, i8)
    do idx = 1, ps%n
      ps%species(idx) = 1 + mod(idx, 2)
      ps%mass(idx) = merge(1.0_dp, 2.0_dp, ps%species(idx) == 1)
      do m = 1, 3
        ps%vel(m, idx) = uniform(state) - 0.5_dp
      end do
    end do

    ! remove the centre-of-mass drift
    vsum = 0.0_dp
    do idx = 1, ps%n
      vsum = vsum + ps%mass(idx) * ps%vel(:, idx)
    end do
    vsum = vsum / sum(ps%mass)
    do idx = 1, ps%n
      ps%vel(:, idx) = ps%vel(:, idx) - vsum
    end do
    ps%frc = 0.0_dp
  end subroutine create_lattice

  function uniform(state) result(r)
    integer(i8), intent(inout) :: state
    real(dp) :: r
    state = modulo(state * 1103515245_i8 + 12345_i8, 2147483648_i8)
    r = real(state, dp) / 2147483648.0_dp
  end function uniform

  subroutine destroy_set(ps)
    type(particle_set), intent(inout) :: ps
    if (allocated(ps%pos)) deallocate(ps%pos, ps%vel, ps%frc)
    if (allocated(ps%mass)) deallocate(ps%mass)
    if (allocated(ps%species)) deallocate(ps%species)
    ps%n = 0
  end subroutine destroy_set

  pure function wrap(d, box) result(w)
    real(dp), intent(in) :: d, box
    real(dp) :: w
    w = d - box * anint(d / box)
  end function wrap

  subroutine build_cells(ps, cl, cutoff)
    type(particle_set), intent(in) :: ps
    type(cell_list), intent(inout) :: cl
    real(dp), intent(in) :: cutoff
    integer :: i, cx, cy, cz

    cl%ncell = max(1, int(ps%box / cutoff))
    cl%width = ps%box / cl%ncell
    if (allocated(cl%head)) deallocate(cl%head, cl%next)
    allocate(cl%head(0:cl%ncell - 1, 0:cl%ncell - 1, 0:cl%ncell - 1))
    allocate(cl%next(ps%n))
    cl%head = 0

    ! serial insertion: the list is a chain through next(:)
    do i = 1, ps%n
      cx = cell_of(ps%pos(1, i))
      cy = cell_of(ps%pos(2, i))
      cz = cell_of(ps%pos(3, i))
      cl%next(i) = cl%head(cx, cy, cz)
      cl%head(cx, cy, cz) = i
    end do

  contains

    integer function cell_of(x)
      real(dp), intent(in) :: x
      cell_of = modulo(int(floor(x / cl%width)), cl%ncell)
    end function cell_of

  end subroutine build_cells

  subroutine compute_forces(ps, cl, prm, epot, virial)
    type(particle_set), intent(inout) :: ps
    type(cell_list), intent(in) :: cl
    type(md_params), intent(in) :: prm
    real(dp), intent(out) :: epot, virial
    integer :: cx, cy, cz, nx, ny, nz, ox, oy, oz, i, j, nc
    real(dp) :: d(3), r2, rc2, inv2, inv6, fmag, ecut

    nc = cl%ncell
    rc2 = prm%cutoff**2
    inv6 = 1.0_dp / rc2**3
    ecut = 4.0_dp * inv6 * (inv6 - 1.0_dp)
    epot = 0.0_dp
    virial = 0.0_dp

    !$omp parallel do default(shared) schedule(dynamic, 8) &
    !$omp& private(cy, cz, ox, oy, oz, nx, ny, nz, i, j, d, r2, inv2, inv6, fmag) &
    !$omp& reduction(+:epot, virial)
    do cx = 0, nc - 1
      do cy = 0, nc - 1
        do cz = 0, nc - 1
          i = cl%head(cx, cy, cz)
          do while (i > 0)
            ps%frc(:, i) = 0.0_dp
            do oz = -1, 1
              do oy = -1, 1
                do ox = -1, 1
                  nx = modulo(cx + ox, nc)
                  ny = modulo(cy + oy, nc)
                  nz = modulo(cz + oz, nc)
                  j = cl%head(nx, ny, nz)
                  do while (j > 0)
                    if (j /= i) then
                      d = ps%pos(:, i) - ps%pos(:, j)
                      if (prm%boundary == BC_PERIODIC) d = d - ps%box * anint(d / ps%box)
                      r2 = sum(d * d)
                      if (r2 < rc2) then
                        inv2 = 1.0_dp / r2
                        inv6 = inv2**3
                        fmag = 48.0_dp * inv2 * inv6 * (inv6 - 0.5_dp)
                        ps%frc(:, i) = ps%frc(:, i) + fmag * d
                        ! each pair is visited twice, so count half
                        epot = epot + 2.0_dp * inv6 * (inv6 - 1.0_dp) - 0.5_dp * ecut
                        virial = virial + 0.5_dp * fmag * r2
                      end if
                    end if
                    j = cl%next(j)
                  end do
                end do
              end do
            end do
            i = cl%next(i)
          end do
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine compute_forces

  ! One velocity Verlet step: half kick, drift, new forces, half kick.
  subroutine verlet_step(ps, cl, prm, epot, virial)
    type(md_params), intent(in) :: prm
    real(dp), intent(out) :: epot, virial
    type(particle_set), intent(inout) :: ps
    type(cell_list), intent(inout) :: cl
    real(dp) :: half_dt, lambda, tnow
    integer :: i, k

    half_dt = 0.5_dp * prm%dt

    !$omp parallel do private(k)
    do i = 1, ps%n
      ps%vel(:, i) = ps%vel(:, i) + half_dt * ps%frc(:, i) / ps%mass(i)
      ps%pos(:, i) = ps%pos(:, i) + prm%dt * ps%vel(:, i)
      do k = 1, 3
        select case (prm%boundary)
        case (BC_PERIODIC)
          ps%pos(k, i) = modulo(ps%pos(k, i), ps%box)
        case (BC_REFLECT)
          if (ps%pos(k, i) < 0.0_dp) then
            ps%pos(k, i) = -ps%pos(k, i)
            ps%vel(k, i) = -ps%vel(k, i)
          else if (ps%pos(k, i) >= ps%box) then
            ps%pos(k, i) = 2.0_dp * ps%box - ps%pos(k, i) - epsilon(1.0_dp)
            ps%vel(k, i) = -ps%vel(k, i)
          end if
        case default
          ! open boundaries: particles may leave, nothing to do
        end select
      end do
    end do
    !$omp end parallel do

    call build_cells(ps, cl, prm%cutoff)
    call compute_forces(ps, cl, prm, epot, virial)

    lambda = 1.0_dp
    if (prm%thermostat) then
      tnow = temperature_of(ps)
      if (tnow > 0.0_dp) then
        lambda = sqrt(1.0_dp + prm%dt / prm%tau_thermo * (prm%temperature / tnow - 1.0_dp))
      end if
    end if

    !$omp parallel do
    do i = 1, ps%n
      ps%vel(:, i) = lambda * (ps%vel(:, i) + half_dt * ps%frc(:, i) / ps%mass(i))
    end do
    !$omp end parallel do
  end subroutine verlet_step

  real(dp) function kinetic_energy(ps) result(ekin)
    type(particle_set), intent(in) :: ps
    integer :: i
    ekin = 0.0_dp
    !$omp parallel do reduction(+:ekin)
    do i = 1, ps%n
      ekin = ekin + 0.5_dp * ps%mass(i) * dot_product(ps%vel(:, i), ps%vel(:, i))
    end do
    !$omp end parallel do
  end function kinetic_energy

  real(dp) function temperature_of(ps)
    type(particle_set), intent(in) :: ps
    temperature_of = 2.0_dp * kinetic_energy(ps) / (3.0_dp * real(ps%n - 1, dp))
  end function temperature_of

  ! Pair distance histogram g(r) over a sample of particles.  Each sampled
  ! particle becomes a task; bins are updated atomically.
  subroutine radial_histogram(ps, rmax, stride, g, fastest)
    type(particle_set), intent(in) :: ps
    real(dp), intent(in) :: rmax
    integer, intent(in) :: stride
    real(dp), intent(out) :: g(NBINS)
    real(dp), intent(out) :: fastest
    integer :: hist(NBINS), i, nsampled, tid
    real(dp) :: dr, shell, rho, vmax_local
    real(dp), parameter :: pi = 3.14159265358979323846_dp

    hist = 0
    dr = rmax / NBINS
    fastest = 0.0_dp
    nsampled = 0
    tid = 0

    !$omp parallel private(vmax_local, tid)
    tid = 0
    !$ tid = omp_get_thread_num()
    !$omp single
    do i = 1, ps%n, stride
      nsampled = nsampled + 1
      !$omp task firstprivate(i) shared(hist)
      call sample_one(i)
      !$omp end task
    end do
    !$omp end single

    ! speed maximum: per-thread partial, merged in a critical section
    vmax_local = 0.0_dp
    !$omp do
    do i = 1, ps%n
      vmax_local = max(vmax_local, norm2(ps%vel(:, i)))
    end do
    !$omp end do
    !$omp critical (speed_max)
    if (vmax_local > fastest) fastest = vmax_local
    !$omp end critical (speed_max)

    !$omp barrier
    !$omp master
    if (tid == 0 .and. nsampled == 0) fastest = -1.0_dp
    !$omp end master
    !$omp end parallel

    rho = real(ps%n, dp) / ps%box**3
    do i = 1, NBINS
      shell = 4.0_dp / 3.0_dp * pi * ((i * dr)**3 - ((i - 1) * dr)**3)
      if (nsampled > 0) then
        g(i) = real(hist(i), dp) / (real(nsampled, dp) * rho * shell)
      else
        g(i) = 0.0_dp
      end if
    end do

  contains

    subroutine sample_one(p)
      integer, intent(in) :: p
      integer :: q, b
      real(dp) :: d(3), r
      do q = 1, ps%n
        if (q == p) cycle
        d = ps%pos(:, p) - ps%pos(:, q)
        d(1) = wrap(d(1), ps%box)
        d(2) = wrap(d(2), ps%box)
        d(3) = wrap(d(3), ps%box)
        r = sqrt(sum(d**2))
        if (r >= rmax) cycle
        b = min(NBINS, 1 + int(r / dr))
        !$omp atomic
        hist(b) = hist(b) + 1
      end do
    end subroutine sample_one

  end subroutine radial_histogram

end module particle_system

program lj_md
  use md_kinds
  use particle_system
  !$ use omp_lib
  implicit none

  type(particle_set) :: atoms
  type(cell_list) :: cells
  type(md_params) :: prm
  real(dp) :: epot, virial, ekin, etot0, drift, gr(50), vfast
  integer :: step, ncube, nthreads, nargs, ios
  character(len=32) :: arg

  ncube = 6
  nargs = command_argument_count()
  if (nargs >= 1) then
    call get_command_argument(1, arg)
    read(arg, *, iostat=ios) ncube
    if (ios /= 0 .or. ncube < 2) then
      write(*, '(a)') 'usage: lj_md [cells-per-edge >= 2]'
      stop 1
    end if
  end if

  nthreads = 1
  !$ nthreads = omp_get_max_threads()
  write(*, '(a, i0, a, i0, a)') 'lj_md: ', 4 * ncube**3, ' atoms on ', nthreads, ' threads'

  call create_lattice(atoms, ncube, 0.8442_dp, 20240611)
  call build_cells(atoms, cells, prm%cutoff)
  call compute_forces(atoms, cells, prm, epot, virial)
  etot0 = epot + kinetic_energy(atoms)

  write(*, '(a8, 4a16)') 'step', 'potential', 'kinetic', 'total', 'temperature'
  do step = 1, prm%nsteps
    call verlet_step(atoms, cells, prm, epot, virial)
    if (mod(step, prm%report_every) == 0 .or. step == prm%nsteps) then
      ekin = kinetic_energy(atoms)
      write(*, '(i8, 4es16.7)') step, epot / atoms%n, ekin / atoms%n, &
          (epot + ekin) / atoms%n, temperature_of(atoms)
    end if
  end do

  drift = (epot + kinetic_energy(atoms) - etot0) / abs(etot0)
  call radial_histogram(atoms, 0.5_dp * atoms%box, 7, gr, vfast)

  write(*, '(a, es12.4)') 'relative energy drift: ', drift
  write(*, '(a, f10.5)') 'fastest particle speed: ', vfast
  write(*, '(a, f8.4, a, i0)') 'g(r) peak: ', maxval(gr), ' at bin ', maxloc(gr, 1)

  call destroy_set(atoms)
end program lj_md
