/** The machine's processes as /proc lists them (Linux): for finding our own children and measuring their memory. */
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessInfo {
  pid: number;
  /** The executable's name (`workerd`, `node`). */
  comm: string;
  ppid: number;
  pgrp: number;
}

/** Every process still there while /proc is read. */
export function processes(): ProcessInfo[] {
  const out: ProcessInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid pgrp ...; comm may contain spaces and parentheses.
      const close = stat.lastIndexOf(')');
      const fields = stat.slice(close + 2).split(' ');
      out.push({ pid: Number(entry), comm: stat.slice(stat.indexOf('(') + 1, close), ppid: Number(fields[1]), pgrp: Number(fields[2]) });
    } catch {
      /* the process went away */
    }
  }
  return out;
}

/** Resident memory of a process in bytes (0 once it is gone). */
export function rssBytes(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}
