// Reads one key (an object, or every object under it as a folder) from S3 into the local cache.
// Run by S3Storage in a child process so that its synchronous path interface can read through.
// stdin: {"settings": S3Settings, "objectKey": "...", "dest": "/abs/path"}
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';

const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const s = input.settings;
const client = new S3Client({
  endpoint: s.endpoint,
  region: s.region,
  forcePathStyle: s.forcePathStyle,
  credentials: s.accessKeyId && s.secretAccessKey ? { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey } : undefined,
});

async function get(key, dest) {
  const res = await client.send(new GetObjectCommand({ Bucket: s.bucket, Key: key }));
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  const tmp = `${dest}.part-${process.pid}`;
  await pipeline(res.Body, fs.createWriteStream(tmp));
  fs.renameSync(tmp, dest);
}

const found = [];
let token;
do {
  const page = await client.send(new ListObjectsV2Command({ Bucket: s.bucket, Prefix: input.objectKey, ContinuationToken: token }));
  for (const o of page.Contents ?? []) {
    if (o.Key === input.objectKey || o.Key.startsWith(input.objectKey + '/')) found.push(o.Key);
  }
  token = page.IsTruncated ? page.NextContinuationToken : undefined;
} while (token);
for (const key of found) {
  await get(key, key === input.objectKey ? input.dest : path.join(input.dest, key.slice(input.objectKey.length + 1)));
}
client.destroy();
