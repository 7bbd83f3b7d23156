import fs from 'node:fs';
import path from 'node:path';
import { storedJson } from '../../db/stored.js';
import { Sketch, type SketchCaches, sketchCaches, SketchManifest, sketchDirOf, type SketchSettings } from './sketch.js';

/** Told when a dataset's sketch is replaced (with the new build id: answers about other builds are stale) or the
 * dataset is deleted (no build id). */
export type SketchChange = (datasetId: string, buildId?: string) => void;

/**
 * The exploration sketches as one app instance knows them: each dataset's manifest (re-read when its file is
 * replaced), the column and bin caches, and who is told of a change (the exploration answers kept by the
 * visualization area). Built once with the app's services (services.ts); two apps in one process share nothing.
 */
export class SketchStore {
  readonly caches: SketchCaches;
  private manifests = new Map<string, { stamp: string; manifest: SketchManifest }>();
  private changes = new Set<SketchChange>();

  constructor(settings: SketchSettings) {
    this.caches = sketchCaches(settings);
  }

  /** `f` is told of every replaced or forgotten sketch from now on. */
  onChange(f: SketchChange) {
    this.changes.add(f);
  }

  /** The dataset's sketch, or null while none is built (the statistics job writes it); re-read when replaced. */
  read(datasetId: string, parquet: string): Sketch | null {
    const dir = sketchDirOf(parquet);
    const file = path.join(dir, 'manifest.json');
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
    } catch {
      this.manifests.delete(dir);
      return null;
    }
    const stamp = `${st.ino}:${st.mtimeMs}:${st.size}`;
    let entry = this.manifests.get(dir);
    if (!entry || entry.stamp !== stamp) {
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch {
        return null; // replaced or removed since the stat
      }
      // written whole (a directory renamed into place), so a manifest of another shape is a fault, named
      entry = { stamp, manifest: storedJson('sketch manifest.json', SketchManifest, text) };
      if (entry.manifest.version !== 1) return null;
      this.manifests.set(dir, entry);
      this.caches.columns.invalidate(datasetId, entry.manifest.build_id);
      this.caches.bins.invalidate(datasetId, entry.manifest.build_id);
      for (const f of this.changes) f(datasetId, entry.manifest.build_id);
    }
    return new Sketch(datasetId, dir, entry.manifest, this.caches);
  }

  /** Forgets a dataset's sketch and its cached columns (the dataset was deleted). */
  forget(datasetId: string, parquet: string) {
    this.manifests.delete(sketchDirOf(parquet));
    this.caches.columns.invalidate(datasetId);
    this.caches.bins.invalidate(datasetId);
    for (const f of this.changes) f(datasetId);
  }
}
