"""ResNet-18 and Wide ResNet-50-2 in plain torch, for PatchCore with ImageNet weights a site already has.

torchvision does not import here, so the two networks are written out with torchvision's module names: a weights file
in torchvision's format (resnet18-f37072fd.pth, wide_resnet50_2-95faca4d.pth, a plain state_dict saved by torch.save)
loads into them with torch.load(weights_only=True) and load_state_dict(strict=True). Nothing is downloaded: the file
is copied into the weights folder (MITATE_IMAGE_WEIGHTS_DIR).

PatchCore (Roth et al., 2022) takes the outputs of layer2 (stride 8) and layer3 (stride 16) of a WideResNet-50:
512 + 1024 channels (ResNet-18: 128 + 256).
"""

from __future__ import annotations

import torch
from torch import nn

# ImageNet statistics the torchvision weights were trained with; the image pipeline gives inputs in [-1, 1]
# (EfficientNet-Lite's scaling, backbone.MEAN/STD), converted here.
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)


def _conv3(i: int, o: int, stride: int = 1) -> nn.Conv2d:
    return nn.Conv2d(i, o, 3, stride=stride, padding=1, bias=False)


def _conv1(i: int, o: int, stride: int = 1) -> nn.Conv2d:
    return nn.Conv2d(i, o, 1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes: int, planes: int, stride: int = 1, downsample: nn.Module | None = None, width_per_group: int = 64):
        super().__init__()
        self.conv1 = _conv3(inplanes, planes, stride)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = _conv3(planes, planes)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample

    def forward(self, x):
        idt = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + idt)


class Bottleneck(nn.Module):
    """torchvision's V1.5 bottleneck: the stride on the 3x3 convolution; `width_per_group` 128 makes it wide."""

    expansion = 4

    def __init__(self, inplanes: int, planes: int, stride: int = 1, downsample: nn.Module | None = None, width_per_group: int = 64):
        super().__init__()
        width = int(planes * (width_per_group / 64.0))
        self.conv1 = _conv1(inplanes, width)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = _conv3(width, width, stride)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = _conv1(width, planes * self.expansion)
        self.bn3 = nn.BatchNorm2d(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):
        idt = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + idt)


class ResNet(nn.Module):
    def __init__(self, block: type[BasicBlock] | type[Bottleneck], layers: tuple[int, int, int, int], width_per_group: int = 64, num_classes: int = 1000):
        super().__init__()
        self.inplanes = 64
        self.width_per_group = width_per_group
        self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
        self.layer1 = self._layer(block, 64, layers[0])
        self.layer2 = self._layer(block, 128, layers[1], stride=2)
        self.layer3 = self._layer(block, 256, layers[2], stride=2)
        self.layer4 = self._layer(block, 512, layers[3], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(512 * block.expansion, num_classes)
        self.register_buffer("_mean", torch.tensor(IMAGENET_MEAN).view(1, 3, 1, 1), persistent=False)
        self.register_buffer("_std", torch.tensor(IMAGENET_STD).view(1, 3, 1, 1), persistent=False)

    def _layer(self, block, planes: int, blocks: int, stride: int = 1) -> nn.Sequential:
        down = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            down = nn.Sequential(_conv1(self.inplanes, planes * block.expansion, stride), nn.BatchNorm2d(planes * block.expansion))
        mods = [block(self.inplanes, planes, stride, down, self.width_per_group)]
        self.inplanes = planes * block.expansion
        mods += [block(self.inplanes, planes, width_per_group=self.width_per_group) for _ in range(1, blocks)]
        return nn.Sequential(*mods)

    def normalise(self, x: torch.Tensor) -> torch.Tensor:
        """Inputs in [-1, 1] (the image pipeline's scaling) to ImageNet's normalisation."""
        return ((x * 0.5 + 0.5) - self._mean) / self._std

    def stages(self, x: torch.Tensor, upto: int) -> list[torch.Tensor]:
        """The outputs of layer1..layer`upto`."""
        h = self.maxpool(self.relu(self.bn1(self.conv1(self.normalise(x)))))
        out = []
        for layer in (self.layer1, self.layer2, self.layer3, self.layer4)[:upto]:
            h = layer(h)
            out.append(h)
        return out

    def forward(self, x):
        h = self.stages(x, 4)[-1]
        return self.fc(torch.flatten(self.avgpool(h), 1))


def build(name: str) -> ResNet:
    if name == "resnet18":
        return ResNet(BasicBlock, (2, 2, 2, 2))
    if name == "wide_resnet50_2":
        return ResNet(Bottleneck, (3, 4, 6, 3), width_per_group=128)
    raise ValueError(f"unknown ResNet {name}")
