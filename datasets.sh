#!/usr/bin/env bash
# datasets.sh: fetch the graphs of the Watch Your Step paper (and larger SNAP
# graphs) into data/, verifying sha256 checksums where they are known.
#
#   ./datasets.sh                 fetch every dataset
#   ./datasets.sh ca-HepTh PPI    fetch some
#   ./datasets.sh --list          list the datasets and their sources
#   ./datasets.sh --from DIR ...  copy from a local mirror laid out like
#                                 ../shared/datasets instead of downloading
#
# Idempotent: a file already present with the right checksum is kept.
# Exit status 1 names every dataset that failed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
data="$here/data"

# name|url|file in data/|sha256 of the file as stored (or "unknown")|mirror path
catalog=(
  "ca-HepTh|https://snap.stanford.edu/data/ca-HepTh.txt.gz|ca-HepTh.txt.gz|60e5849959591635dae296c9bcbc88c2a12201e3d2c5a261dc2c3575b4e37ce2|ca-HepTh/CA-HepTh.txt.gz"
  "ego-Facebook|https://snap.stanford.edu/data/facebook_combined.txt.gz|facebook_combined.txt.gz|7cc432d08910b3a940ce90f7da94c13aaf048b04724eafcdf3050b28acc49daf|ego-Facebook/facebook_combined.txt.gz"
  "wiki-Vote|https://snap.stanford.edu/data/wiki-Vote.txt.gz|wiki-Vote.txt.gz|unknown|"
  "ca-AstroPh|https://snap.stanford.edu/data/ca-AstroPh.txt.gz|ca-AstroPh.txt.gz|unknown|"
  "PPI|http://snap.stanford.edu/node2vec/Homo_sapiens.mat|Homo_sapiens.mat|8a32b88b0576276f02d7aaa3fd282e8617a3e6db8d39abb6212a283363bf1183|PPI/Homo_sapiens.mat.gz"
  "soc-Slashdot0902|https://snap.stanford.edu/data/soc-Slashdot0902.txt.gz|soc-Slashdot0902.txt.gz|65072f0a2d98a444967bf3b8379a87e03292f2f9f8924f4fe470ddd047c95553|soc-Slashdot0902/soc-Slashdot0902.txt.gz"
  "email-Enron|https://snap.stanford.edu/data/email-Enron.txt.gz|email-Enron.txt.gz|unknown|email-Enron/Email-Enron.txt.gz"
  "p2p-Gnutella31|https://snap.stanford.edu/data/p2p-Gnutella31.txt.gz|p2p-Gnutella31.txt.gz|unknown|p2p-Gnutella31/p2p-Gnutella31.txt.gz"
  "com-DBLP|https://snap.stanford.edu/data/bigdata/communities/com-dblp.ungraph.txt.gz|com-dblp.ungraph.txt.gz|unknown|"
  "com-Amazon|https://snap.stanford.edu/data/bigdata/communities/com-amazon.ungraph.txt.gz|com-amazon.ungraph.txt.gz|unknown|"
  "com-Youtube|https://snap.stanford.edu/data/bigdata/communities/com-youtube.ungraph.txt.gz|com-youtube.ungraph.txt.gz|unknown|"
  "com-LiveJournal|https://snap.stanford.edu/data/bigdata/communities/com-lj.ungraph.txt.gz|com-lj.ungraph.txt.gz|unknown|"
  "com-Orkut|https://snap.stanford.edu/data/bigdata/communities/com-orkut.ungraph.txt.gz|com-orkut.ungraph.txt.gz|unknown|"
)
# The released AsymProj split arrays, copied with --from only (their
# tarball's address is not reliably reachable).
splits=(ca-HepTh ego-Facebook PPI soc-Epinions1)

usage() {
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
}

die() { echo "datasets.sh: $*" >&2; exit 2; }

sha() { sha256sum "$1" | cut -d' ' -f1; }

from=""
names=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --list)
      printf '%-18s %-9s %s\n' NAME CHECKSUM SOURCE
      for entry in "${catalog[@]}"; do
        IFS='|' read -r name url file sum mirror <<<"$entry"
        known=yes; [ "$sum" = unknown ] && known=no
        printf '%-18s %-9s %s\n' "$name" "$known" "$url"
      done
      exit 0 ;;
    --from) [ $# -ge 2 ] || die "--from needs a directory"; from=$2; shift ;;
    --from=*) from=${1#--from=} ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) names+=("$1") ;;
  esac
  shift
done
if [ -n "$from" ] && [ ! -d "$from" ]; then
  die "mirror directory $from does not exist"
fi

lookup() {
  for entry in "${catalog[@]}"; do
    IFS='|' read -r name _ <<<"$entry"
    if [ "$name" = "$1" ]; then echo "$entry"; return 0; fi
  done
  return 1
}

all=0
if [ ${#names[@]} -eq 0 ]; then
  all=1
  for entry in "${catalog[@]}"; do names+=("${entry%%|*}"); done
fi
for n in "${names[@]}"; do
  lookup "$n" >/dev/null || die "unknown dataset '$n' (run --list for the names)"
done

mkdir -p "$data"
failed=()
for n in "${names[@]}"; do
  IFS='|' read -r name url file sum mirror <<<"$(lookup "$n")"
  dest="$data/$file"
  if [ -f "$dest" ] && { [ "$sum" = unknown ] || [ "$(sha "$dest")" = "$sum" ]; }; then
    echo "ok       $name (already in data/$file)"
    continue
  fi
  tmp="$dest.partial"
  rm -f "$tmp"
  if [ -n "$from" ]; then
    if [ -z "$mirror" ] || [ ! -f "$from/$mirror" ]; then
      echo "missing  $name: not in the mirror ($from/${mirror:-?})" >&2
      failed+=("$name"); continue
    fi
    src="$from/$mirror"
    # The mirror gzips every file; keep .gz files as they are, unpack the others.
    if [[ "$file" == *.gz ]]; then cp "$src" "$tmp"; else gzip -dc "$src" >"$tmp"; fi
  else
    if ! curl -fsSL --retry 2 -o "$tmp" "$url"; then
      echo "failed   $name: download from $url failed" >&2
      rm -f "$tmp"; failed+=("$name"); continue
    fi
  fi
  got=$(sha "$tmp")
  if [ "$sum" != unknown ] && [ "$got" != "$sum" ]; then
    echo "failed   $name: sha256 $got, expected $sum" >&2
    rm -f "$tmp"; failed+=("$name"); continue
  fi
  mv "$tmp" "$dest"
  if [ "$sum" = unknown ]; then
    echo "fetched  $name -> data/$file (no known checksum; sha256 $got)"
  else
    echo "fetched  $name -> data/$file (sha256 verified)"
  fi
done

# Released splits: only from a mirror, for the datasets asked for (all of
# them, soc-Epinions1 included, when none was named).
if [ -n "$from" ]; then
  for s in "${splits[@]}"; do
    wanted=$all
    for n in "${names[@]}"; do [ "$n" = "$s" ] && wanted=1; done
    if [ "$wanted" = 1 ] && [ -d "$from/$s/asymproj" ]; then
      mkdir -p "$data/$s/asymproj"
      cp -p "$from/$s/asymproj/"* "$data/$s/asymproj/"
      echo "ok       $s split -> data/$s/asymproj"
    fi
  done
fi

if [ ${#failed[@]} -gt 0 ]; then
  echo "datasets.sh: failed: ${failed[*]}" >&2
  exit 1
fi
