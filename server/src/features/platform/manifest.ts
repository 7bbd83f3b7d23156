import type { z } from 'zod';
import { ModelManifest } from '../training/stored.js';

/**
 * The manifest.json of a hosted model, copied from its training run: training's declaration, every key optional, as
 * the hosted API reads only some of them and an older run may lack one; the others are kept as written.
 */
export const hostedManifest = ModelManifest.partial();
export type HostedManifest = z.output<typeof hostedManifest>;
