"""Fine-tune the bundled digits model on the device: its convolutions frozen, its dense head trained by
rillet's runtime on digits in a new style (shifted right and down), then checkpointed, restored, exported,
and the exported model run in LiteRT with the same predictions.

    python examples/finetune_on_device.py                 # writes finetune/ beside the current directory
    python examples/finetune_on_device.py --out /tmp/ft --epochs 30
    python examples/finetune_on_device.py --int8           # the frozen convolutions int8, the head float

What runs where: the desktop converts once (`rl.convert(model, train=rl.TrainSpec(...))`: a .tflite with
`infer`, `train`, `save` and `restore` signatures, builtins only); everything after that is what a device
does with `rillet.runtime` alone (numpy, cffi, librillet): one C call per training step. The images are
scikit-learn's held-out digits (never seen in the model's training) when scikit-learn is installed, else
the 200 held-out images bundled with rillet; half of them, shifted, fine-tune the head and the other half,
shifted the same way, measure it. With --int8 the frozen convolutions run int8 (a quantized deployed model:
QUANTIZE, int8 convolutions and pooling, DEQUANTIZE into the float head, which trains as before), and LiteRT
runs the same training steps for comparison. Exits 1 if accuracy does not improve or a check fails.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from rillet.bundled import digits_test_set
from rillet.finetune import accuracy, head_training_file, shifted, train_head
from rillet.runtime import Interpreter


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("finetune"), help="folder for the files it writes")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--shift", type=int, nargs=2, default=(1, 2), metavar=("DY", "DX"))
    parser.add_argument("--int8", action="store_true", help="the frozen feature extractor in int8")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    test = digits_test_set()
    images, labels = shifted(test.images, *args.shift), test.labels
    order = np.random.default_rng(0).permutation(len(labels))
    tune, held_out = order[: len(order) // 2], order[len(order) // 2:]
    print(f"data: {test.source}; shifted by {tuple(args.shift)}: {len(tune)} to fine-tune, {len(held_out)} held out")

    model_path = args.out / "digits_train.tflite"
    model_path.write_bytes(head_training_file(args.lr, frozen_int8=args.int8))
    it = Interpreter(model_path=str(model_path))
    infer = it.get_signature_runner("infer")
    extractor = "int8 (QUANTIZE, int8 convolutions, DEQUANTIZE)" if args.int8 else "float"
    print(f"training file: {model_path} ({model_path.stat().st_size} bytes, frozen convolutions {extractor}), "
          f"signatures {list(it.get_signature_list())}")

    original, _ = accuracy(infer, test.images[held_out], labels[held_out])
    before, _ = accuracy(infer, images[held_out], labels[held_out])
    print(f"held-out accuracy: unshifted {original:.3f}, shifted {before:.3f} before fine-tuning")

    report = it.memory_report()  # before the first step
    print(f"memory before the first step: arena {report['arena_bytes']} B, trained variables "
          f"{report['trained_variable_bytes']} B, Adam's slots {report['optimizer_slot_bytes']} B")
    run = train_head(it, images[tune], labels[tune], args.epochs, args.batch)
    for epoch, loss in enumerate(run.epoch_losses):
        if epoch % 5 == 4 or epoch == args.epochs - 1:
            print(f"  epoch {epoch + 1:3d}: loss {loss:.4f}")
    steps, seconds = run.steps, run.seconds
    after, probs_after = accuracy(infer, images[held_out], labels[held_out])
    print(f"{steps} steps on rillet's runtime in {seconds:.2f} s ({1e3 * seconds / steps:.2f} ms a step)")
    print(f"held-out accuracy, shifted: {before:.3f} -> {after:.3f}")

    checkpoint = args.out / "head.npz"
    it.save_checkpoint(checkpoint)
    restored = Interpreter(model_path=str(model_path))
    restored.restore_checkpoint(checkpoint)
    _, probs_restored = accuracy(restored.get_signature_runner("infer"), images[held_out], labels[held_out])
    same_restored = np.array_equal(probs_restored, probs_after)
    print(f"checkpoint {checkpoint}: restored into a fresh interpreter, same outputs: {same_restored}")

    exported = args.out / "digits_finetuned.tflite"
    it.export_model(exported)
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    same_training = True
    if args.int8:  # the same steps in LiteRT, from the same file: the int8 extractor and the float head
        litert_run = train_head(LiteRT(model_path=str(model_path)), images[tune], labels[tune], args.epochs, args.batch)
        same_training = np.allclose(litert_run.epoch_losses, run.epoch_losses, rtol=1e-5)
        print(f"LiteRT trains the same file to the same losses (1e-5): {same_training}")
    litert = LiteRT(model_path=str(exported)).get_signature_runner("infer")
    probs_litert = litert(image=images[held_out])["probs"]
    same_predictions = np.array_equal(probs_litert.argmax(-1), probs_after.argmax(-1))
    close = np.allclose(probs_litert, probs_after, rtol=1e-5, atol=1e-6)
    print(f"exported {exported}: LiteRT gives the same predictions: {same_predictions} (probabilities within "
          f"1e-5: {close})")
    ok = after > before and same_restored and same_predictions and close and same_training
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
