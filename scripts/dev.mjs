#!/usr/bin/env node
// Development: the server with reload (tsx watch) on :8080 and Vite with hot reload on :5173 (it proxies /api).
import { spawn } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const procs = [
  spawn('npx', ['tsx', 'watch', 'src/main.ts'], { cwd: path.join(root, 'server'), stdio: 'inherit' }),
  spawn('npx', ['vite', '--port', '5173'], { cwd: path.join(root, 'web'), stdio: 'inherit' }),
];
const stop = () => procs.forEach((p) => p.kill('SIGTERM'));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
