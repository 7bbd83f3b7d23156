import { z } from 'zod';

/**
 * The typed boundary between the server and the engine: one declaration per job kind, in the area that owns it
 * (`features/<area>/jobs.ts`), naming the engine task (engine/mitate_engine/tasks/<kind>.py), the spec the server
 * hands it and the result it writes back.
 *
 *   export const trainJob = jobKind('train', { spec: TrainJobSpec, result: TrainJobResult });
 *   await jobs.create({ kind: trainJob, spec, ... });        // the spec is checked before the job is stored
 *   const result = trainJob.resultOf(done);                   // parsed, never cast; null until it succeeded
 *   jobs.onFinished(trainJob, (job) => job.result ...);       // handlers get the parsed result
 *
 * A new kind: declare it so, add it to `Job` in jobs/job-view.ts (GET /jobs/{id} answers it), and write its task.
 */
export interface JobKind<K extends string = string, S extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  readonly kind: K;
  readonly spec: S;
  readonly result: R;
  /** A finished job's result in its declared shape: null unless it succeeded with one; a result of another shape throws. */
  resultOf(job: { kind: string; state: string; result: unknown }): z.output<R> | null;
  /** A stored copy of a result (an area's `result_json`), parsed against the declaration. */
  parseStored(json: string): z.output<R>;
}

/** The spec of a kind: what the engine task reads. Extra keys pass (output_dir, stop files...), the named ones are checked. */
export const jobSpec = <T extends z.ZodRawShape>(shape: T) => z.looseObject(shape);

/** The language of the person who started a job: the engine says its progress in it (mitate_engine/lang.py; English if absent). */
export const jobLang = z.enum(['en', 'ja']).optional();

/**
 * A result checked against its declaration. The engine's JSON is answered as it was written, keys the declaration
 * does not name included (stored figures keep every key the engine wrote): the check is the parse, this is the one
 * place where its value takes the declared type. An area reads one mode of a task's result (a union) the same way.
 */
export function checked<R extends z.ZodType>(kind: string, schema: R, value: unknown): z.output<R> {
  const r = schema.safeParse(value);
  if (!r.success) throw new Error(`a ${kind} job's result is not its declared shape: ${r.error.message.slice(0, 2000)}`);
  return value as z.output<R>;
}

export function jobKind<K extends string, S extends z.ZodType, R extends z.ZodType>(kind: K, declared: { spec: S; result: R }): JobKind<K, S, R> {
  return {
    kind,
    spec: declared.spec,
    result: declared.result,
    resultOf(job) {
      if (job.kind !== kind) throw new Error(`a ${job.kind} job read as ${kind}`);
      if (job.state !== 'succeeded' || job.result === null || job.result === undefined) return null;
      return checked(kind, declared.result, job.result);
    },
    parseStored(json) {
      return checked(kind, declared.result, JSON.parse(json));
    },
  };
}

/** Any declared kind (job service signatures). */
export type AnyJobKind = JobKind<string, z.ZodType, z.ZodType>;
export type SpecOf<J extends AnyJobKind> = z.input<J['spec']>;
export type ResultOf<J extends AnyJobKind> = z.output<J['result']>;
