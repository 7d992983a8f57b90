// /proc files clients read for memory, CPU, uptime and kernel version, with a mid-range phone's figures.
import type { VirtualFs } from "./filesystem.ts";

export const KERNEL_VERSION = "6.1.23-android14-4-00257-g7e35917775b8-ab9964412";
export const MEM_TOTAL_KB = 7_824_584;

const text = (s: string) => Buffer.from(s, "utf8");

function meminfo(uptimeS: number): string {
  // free memory drifts a little with uptime so two reads are not byte-identical, as on a phone
  const free = 1_204_332 - (Math.floor(uptimeS) % 97) * 16;
  const rows: [string, number][] = [
    ["MemTotal", MEM_TOTAL_KB],
    ["MemFree", free],
    ["MemAvailable", 3_951_220],
    ["Buffers", 5_140],
    ["Cached", 2_861_904],
    ["SwapCached", 12_348],
    ["Active", 2_403_096],
    ["Inactive", 1_862_624],
    ["SwapTotal", 4_194_300],
    ["SwapFree", 3_734_012],
    ["Dirty", 344],
    ["AnonPages", 1_390_112],
    ["Mapped", 1_021_728],
    ["Shmem", 21_436],
    ["Slab", 331_064],
    ["KernelStack", 58_832],
    ["PageTables", 121_368],
    ["CommitLimit", 8_106_592],
    ["Committed_AS", 104_823_072],
    ["VmallocTotal", 263_061_440],
  ];
  return rows.map(([k, v]) => `${(k + ":").padEnd(16)}${String(v).padStart(8)} kB\n`).join("");
}

function cpuinfo(): string {
  const cores = 8;
  let s = "";
  for (let i = 0; i < cores; i++) {
    s += `processor\t: ${i}\nBogoMIPS\t: 52.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: ${i < 6 ? "0x2" : "0x1"}\nCPU part\t: ${i < 6 ? "0xd05" : "0xd41"}\nCPU revision\t: 0\n\n`;
  }
  return s + "Hardware\t: PhoneLoop Virtual\n";
}

function stat(uptimeS: number): string {
  const ticks = Math.floor(uptimeS * 100);
  const line = (name: string, share: number) => `${name} ${Math.floor(ticks * share * 0.12)} ${Math.floor(ticks * share * 0.01)} ${Math.floor(ticks * share * 0.08)} ${Math.floor(ticks * share * 0.76)} ${Math.floor(ticks * share * 0.01)} 0 ${Math.floor(ticks * share * 0.005)} 0 0 0\n`;
  let s = line("cpu ", 8);
  for (let i = 0; i < 8; i++) s += line(`cpu${i}`, 1);
  return s + `intr ${ticks * 40}\nctxt ${ticks * 95}\nbtime ${Math.floor(Date.now() / 1000 - uptimeS)}\nprocesses ${3000 + Math.floor(uptimeS)}\nprocs_running 2\nprocs_blocked 0\nsoftirq ${ticks * 12}\n`;
}

export function installProcFiles(fs: VirtualFs, uptimeSeconds: () => number): void {
  fs.generated("/proc/meminfo", () => text(meminfo(uptimeSeconds())));
  fs.generated("/proc/cpuinfo", () => text(cpuinfo()));
  fs.generated("/proc/stat", () => text(stat(uptimeSeconds())));
  fs.generated("/proc/uptime", () => {
    const up = uptimeSeconds();
    return text(`${up.toFixed(2)} ${(up * 6.3).toFixed(2)}\n`);
  });
  fs.generated("/proc/version", () => text(`Linux version ${KERNEL_VERSION} (build-user@build-host) (Android (10087095, +pgo, +bolt, +lto, -mlgo, based on r487747c) clang version 17.0.2, LLD 17.0.2) #1 SMP PREEMPT Mon Oct 30 12:00:00 UTC 2023\n`));
  fs.generated("/proc/loadavg", () => text(`1.52 1.38 1.21 2/2741 ${3000 + Math.floor(uptimeSeconds())}\n`));
  fs.generated("/proc/sys/kernel/osrelease", () => text(`${KERNEL_VERSION}\n`));
  fs.generated("/proc/cmdline", () => text(`androidboot.hardware=ranchu androidboot.serialno=vphone androidboot.verifiedbootstate=green\n`));
}
