#!/usr/bin/env bash
# Ensures the Debian packages PhoneLoop's tests and virtual phone need: Chromium (browser tests), adb (the
# conformance suite drives the virtual phone with Android's own client), CJK, Arabic, Devanagari, Thai, Hebrew, Bengali and DejaVu fonts
# (phone screens), and Tesseract's language data for the OCR that reads blind screens (packages/ocr).
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v adb >/dev/null 2>&1 || need+=(adb)
[ -f /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc ] || need+=(fonts-noto-cjk)
[ -d /usr/share/fonts/truetype/dejavu ] || need+=(fonts-dejavu-core)
noto=/usr/share/fonts/truetype/noto
for font in Arabic Devanagari Thai Hebrew Bengali; do
  [ -f "$noto/NotoSans$font-Regular.ttf" ] || { need+=(fonts-noto-core); break; }
done
# The 24 languages packages/ocr reads (src/scripts.ts), one model per script on each screen.
for lang in eng chi-sim jpn kor deu fra spa por rus ita tur vie ind tha pol nld swe ara hin ben fas heb ukr msa; do
  [ -f "/usr/share/tesseract-ocr/5/tessdata/${lang//-/_}.traineddata" ] || need+=("tesseract-ocr-$lang")
done
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
  echo "Installing system packages: ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
else
  echo "PhoneLoop needs these Debian packages: ${need[*]}" >&2
  echo "Install them with:  sudo apt-get update && sudo apt-get install -y ${need[*]}" >&2
  exit 1
fi
