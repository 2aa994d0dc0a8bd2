# Sourced by scripts/bench-opari2 and scripts/bench-programs, run from
# the repository's root: the C++ programs whose concatenation is their
# input "the corpus's C++ programs", and how an input is made by
# repeating files.

# The corpus's C++ programs, in the order the input holds them.
corpus_cxx_programs=(corpus/cxx/*.cpp corpus/regions/*.cpp
  corpus/report/call_path.cpp corpus/bench/hydro.cpp)

# `repeat OUT BYTES FILE...`: the files one after another, as often as it
# takes to reach BYTES.
repeat() {
  local out="$1" bytes="$2"
  shift 2
  : >"$out"
  while [ "$(stat -c %s "$out")" -lt "$bytes" ]; do
    cat "$@" >>"$out"
  done
}
