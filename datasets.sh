#!/usr/bin/env bash
# datasets.sh: fetch the graphs of the Watch Your Step paper (and larger SNAP
# graphs) into data/, verifying sha256 checksums where they are known.
#
#   ./datasets.sh                  fetch every dataset
#   ./datasets.sh ca-HepTh PPI     fetch some
#   ./datasets.sh --list           list the datasets, files and sources
#   ./datasets.sh --from DIR ...   copy from a local mirror laid out like
#                                  ../shared/datasets instead of downloading
#                                  (also copies the released asymproj splits)
#   ./datasets.sh --dest DIR ...   write into DIR instead of data/
#
# Checksums are sha256 sums of the uncompressed content, so a file gzipped
# again elsewhere still matches. A dataset whose upstream sum is unknown is
# accepted and its computed sum printed. Idempotent: a file already present
# with the right content is kept. Exit status: 0 when everything is in
# place, 1 naming every dataset that failed, 2 for a usage error.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
data="$here/data"

# name|url|file in data/|content sha256 upstream (or unknown)|mirror path|content sha256 of the mirror copy
# The mirror's copies of email-Enron and p2p-Gnutella31 may differ from
# SNAP's bytes (line ends, a missing final CRLF: see MANIFEST.md), so their
# upstream sums stay unknown while the mirror copies are checked.
catalog=(
  "wiki-Vote|https://snap.stanford.edu/data/wiki-Vote.txt.gz|wiki-Vote.txt.gz|unknown||"
  "ego-Facebook|https://snap.stanford.edu/data/facebook_combined.txt.gz|facebook_combined.txt.gz|f41c026ed8af3cc3359f1ca5573d0605fb09ae0eefa34544b820fd8c6e2ef296|ego-Facebook/facebook_combined.txt.gz|f41c026ed8af3cc3359f1ca5573d0605fb09ae0eefa34544b820fd8c6e2ef296"
  "ca-AstroPh|https://snap.stanford.edu/data/ca-AstroPh.txt.gz|ca-AstroPh.txt.gz|unknown||"
  "ca-HepTh|https://snap.stanford.edu/data/ca-HepTh.txt.gz|ca-HepTh.txt.gz|8ce8a9aa75f0617d574a8109a6f8b189a9e38d214a6698ceaf25b2eecc873e90|ca-HepTh/CA-HepTh.txt.gz|8ce8a9aa75f0617d574a8109a6f8b189a9e38d214a6698ceaf25b2eecc873e90"
  "PPI|http://snap.stanford.edu/node2vec/Homo_sapiens.mat|Homo_sapiens.mat|8a32b88b0576276f02d7aaa3fd282e8617a3e6db8d39abb6212a283363bf1183|PPI/Homo_sapiens.mat.gz|8a32b88b0576276f02d7aaa3fd282e8617a3e6db8d39abb6212a283363bf1183"
  "soc-Slashdot0902|https://snap.stanford.edu/data/soc-Slashdot0902.txt.gz|soc-Slashdot0902.txt.gz|f503f1fea1caa322c10cd2c02bffbd8cac97834375c7cec30cdc8bf3bf2bb756|soc-Slashdot0902/soc-Slashdot0902.txt.gz|f503f1fea1caa322c10cd2c02bffbd8cac97834375c7cec30cdc8bf3bf2bb756"
  "email-Enron|https://snap.stanford.edu/data/email-Enron.txt.gz|email-Enron.txt.gz|unknown|email-Enron/Email-Enron.txt.gz|27b6c16fec6f32897810db52456cb43ea153449a219b8d4b01c06fec4777da4a"
  "p2p-Gnutella31|https://snap.stanford.edu/data/p2p-Gnutella31.txt.gz|p2p-Gnutella31.txt.gz|unknown|p2p-Gnutella31/p2p-Gnutella31.txt.gz|5fb68245ef65448023bd753adb5a71b672eda2ed59e6a5c7457a6168dc59c471"
  "com-DBLP|https://snap.stanford.edu/data/bigdata/communities/com-dblp.ungraph.txt.gz|com-dblp.ungraph.txt.gz|unknown||"
  "com-Amazon|https://snap.stanford.edu/data/bigdata/communities/com-amazon.ungraph.txt.gz|com-amazon.ungraph.txt.gz|unknown||"
  "com-Youtube|https://snap.stanford.edu/data/bigdata/communities/com-youtube.ungraph.txt.gz|com-youtube.ungraph.txt.gz|unknown||"
  "com-LiveJournal|https://snap.stanford.edu/data/bigdata/communities/com-lj.ungraph.txt.gz|com-lj.ungraph.txt.gz|unknown||"
  "com-Orkut|https://snap.stanford.edu/data/bigdata/communities/com-orkut.ungraph.txt.gz|com-orkut.ungraph.txt.gz|unknown||"
)

# The released AsymProj split arrays (mirror only: their tarball's address
# could not be reached to check it). dataset|file|content sha256 (unknown:
# not listed in MANIFEST.md).
splits=(
  "ca-HepTh|index.pkl.gz|297def972e84fb7185070f99324770ce793b501b844d4e6f5aef66da772f6b76"
  "ca-HepTh|index.tsv.gz|unknown"
  "ca-HepTh|train.txt.npy.gz|af21f2b3ef76344634a4426c91cddf83605a7d5de25ed3f2feba9070ab352bc8"
  "ca-HepTh|test.txt.npy.gz|e7fec84c082df60400a589bc22b5362ee854a79783f13af3eade14537c8d4e8c"
  "ca-HepTh|train.neg.txt.npy.gz|e89bacd62b3acbfa8bef559fb6bda3e8694476cf0200e3281a12aa2e96013c22"
  "ca-HepTh|test.neg.txt.npy.gz|c465de701a5f36b1aab87743d790306c4e5aee467b2af07b12de369869a8c6c2"
  "ego-Facebook|index.pkl.gz|225f4ec06ad1033e189ac55f1fd59ad5f0ca8b31ed92c0b2a53625658f534f3b"
  "ego-Facebook|index.tsv.gz|unknown"
  "ego-Facebook|train.txt.npy.gz|1c9297c16073816856cda040d52cedfe2cc606e8d8d913ee8174f2205ebc2beb"
  "ego-Facebook|test.txt.npy.gz|c20bdf018b64e1e23c782e1088357ec19a0cc2e36647b810ce921ee3b6bb5615"
  "ego-Facebook|train.neg.txt.npy.gz|7cfd350703f5cf285318bb1c535ec20acfd6a83cb214cb8fcd0f9c4dacf9340b"
  "ego-Facebook|test.neg.txt.npy.gz|4ca450b91c00ac33ec1d911a3fd949bb9e9b878139f321c2f14d40c153b4ccaf"
  "PPI|index.pkl.gz|45faeee6bc74299b5964a52b6298b140cd3194360762916c14312b89560f3078"
  "PPI|index.tsv.gz|unknown"
  "PPI|train.txt.npy.gz|aee462b56eecac8b5d7495846bc5a9fedf7a38cd138926af501785ab4e81abc0"
  "PPI|test.txt.npy.gz|78ae8f049cf1eb75136463efc9a1704af331dd397d36776c077ddbcc9db1c7f1"
  "PPI|train.neg.txt.npy.gz|5ab4c57730d3b81198db44c511879e93a8521a6c4a9a825c2097032dda9dd087"
  "PPI|test.neg.txt.npy.gz|3cf50938e37000e3a4323fffa2bb68e69690e65bf730e5a62386e8aae0746c8f"
  "soc-Epinions1|index.pkl.gz|336962716eb5814be269d22eaf0e128728165903a7c05cfd0f5b6c7ea39e0c22"
  "soc-Epinions1|index.tsv.gz|unknown"
  "soc-Epinions1|train.txt.npy.gz|199772bc4c19a5e6a2a086ad0e84c19861acfd76a48837fc9a1d25d50362352f"
  "soc-Epinions1|test.txt.npy.gz|bf6a30c1489db757be50c07b90648b9efe19b07afdcfc89eccd480310c902843"
  "soc-Epinions1|train.neg.txt.npy.gz|bd633afa36d1e96238aa5da252d343dfbb49088c88c61d17e748216c38d7d6e5"
  "soc-Epinions1|test.neg.txt.npy.gz|034eec062553245bc49d85c3db0d610ed64685704ebb5d047e46d87304f49227"
)

usage() {
  sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
}

die() { echo "datasets.sh: $*" >&2; exit 2; }

# content_sha FILE: sha256 of FILE's content, decompressed when it is gzip.
content_sha() {
  if [ "$(head -c 2 "$1" | od -An -tx1 | tr -d ' \n')" = 1f8b ]; then
    gzip -dc "$1" | sha256sum | cut -d' ' -f1
  else
    sha256sum "$1" | cut -d' ' -f1
  fi
}

# download URL FILE
download() {
  if command -v curl >/dev/null; then
    curl -fsSL --retry 2 -o "$2" "$1"
  elif command -v wget >/dev/null; then
    wget -q -O "$2" "$1"
  else
    echo "neither curl nor wget is installed" >&2
    return 1
  fi
}

list() {
  printf '%-17s %-26s %-8s %-7s %s\n' NAME FILE CHECKSUM MIRROR SOURCE
  for entry in "${catalog[@]}"; do
    IFS='|' read -r name url file sum mirror _ <<<"$entry"
    known=yes; [ "$sum" = unknown ] && known=no
    inmirror=no; [ -n "$mirror" ] && inmirror=yes
    printf '%-17s %-26s %-8s %-7s %s\n' "$name" "$file" "$known" "$inmirror" "$url"
  done
  echo "Released asymproj splits (with --from only): ca-HepTh ego-Facebook PPI soc-Epinions1"
}

from=""
names=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --list) list; exit 0 ;;
    --from) [ $# -ge 2 ] || die "--from needs a directory"; from=$2; shift ;;
    --from=*) from=${1#--from=} ;;
    --dest) [ $# -ge 2 ] || die "--dest needs a directory"; data=$2; shift ;;
    --dest=*) data=${1#--dest=} ;;
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
    if [ "${entry%%|*}" = "$1" ]; then echo "$entry"; return 0; fi
  done
  return 1
}

is_split() {
  for s in "${splits[@]}"; do
    if [ "${s%%|*}" = "$1" ]; then return 0; fi
  done
  return 1
}

if [ ${#names[@]} -eq 0 ]; then
  for entry in "${catalog[@]}"; do names+=("${entry%%|*}"); done
  [ -n "$from" ] && names+=(soc-Epinions1)
fi
for n in "${names[@]}"; do
  if ! lookup "$n" >/dev/null && ! is_split "$n"; then
    die "unknown dataset '$n' (run ./datasets.sh --list for the names)"
  fi
done

mkdir -p "$data"
failed=()

# fetch_graph NAME: put the dataset's graph file in place.
fetch_graph() {
  local name url file sum mirror msum dest tmp got want
  IFS='|' read -r name url file sum mirror msum <<<"$(lookup "$1")"
  dest="$data/$file"
  want=$sum
  [ -n "$from" ] && want=$msum
  if [ -f "$dest" ]; then
    got=$(content_sha "$dest")
    if [ "$want" = unknown ] || [ "$sum" = unknown ] || [ "$got" = "$want" ] || [ "$got" = "$sum" ]; then
      echo "ok       $name (already in $dest)"
      return 0
    fi
    echo "stale    $name: $dest has sha256 $got, expected $want; fetching again"
  fi
  tmp="$dest.partial"
  rm -f "$tmp"
  if [ -n "$from" ]; then
    if [ -z "$mirror" ]; then
      echo "failed   $name: the mirror layout has no copy of it (download it instead)" >&2
      return 1
    fi
    if [ ! -f "$from/$mirror" ]; then
      echo "failed   $name: $from/$mirror is missing" >&2
      return 1
    fi
    # The mirror gzips every file: keep .gz files as they are, unpack the
    # others (PPI's .mat), as SNAP serves them.
    if [[ "$file" == *.gz ]]; then
      cp "$from/$mirror" "$tmp"
    else
      gzip -dc "$from/$mirror" >"$tmp"
    fi
  elif ! download "$url" "$tmp"; then
    echo "failed   $name: download from $url failed" >&2
    rm -f "$tmp"
    return 1
  fi
  got=$(content_sha "$tmp")
  if [ "$want" != unknown ] && [ "$got" != "$want" ]; then
    echo "failed   $name: content sha256 $got, expected $want" >&2
    rm -f "$tmp"
    return 1
  fi
  mv "$tmp" "$dest"
  if [ "$want" = unknown ]; then
    echo "fetched  $name -> $dest (no known checksum; content sha256 $got)"
  else
    echo "fetched  $name -> $dest (content sha256 verified)"
  fi
}

# copy_split NAME: copy the released split of NAME from the mirror.
copy_split() {
  local ds file sum dir got bad=0
  dir="$data/$1/asymproj"
  mkdir -p "$dir"
  for s in "${splits[@]}"; do
    IFS='|' read -r ds file sum <<<"$s"
    [ "$ds" = "$1" ] || continue
    if [ ! -f "$from/$ds/asymproj/$file" ]; then
      echo "failed   $ds split: $from/$ds/asymproj/$file is missing" >&2
      bad=1; continue
    fi
    got=$(content_sha "$from/$ds/asymproj/$file")
    if [ "$sum" != unknown ] && [ "$got" != "$sum" ]; then
      echo "failed   $ds split: $file has content sha256 $got, expected $sum" >&2
      bad=1; continue
    fi
    cp "$from/$ds/asymproj/$file" "$dir/$file.partial"
    mv "$dir/$file.partial" "$dir/$file"
  done
  [ "$bad" = 0 ] && echo "ok       $1 split -> $dir"
  return "$bad"
}

for n in "${names[@]}"; do
  ok=1
  if lookup "$n" >/dev/null; then
    fetch_graph "$n" || ok=0
  fi
  if [ -n "$from" ] && is_split "$n"; then
    copy_split "$n" || ok=0
  elif [ -z "$from" ] && ! lookup "$n" >/dev/null; then
    echo "failed   $n: only its released split is known, and splits are copied with --from only" >&2
    ok=0
  fi
  [ "$ok" = 1 ] || failed+=("$n")
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "datasets.sh: failed: ${failed[*]}" >&2
  exit 1
fi
