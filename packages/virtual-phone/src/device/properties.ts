// System properties (getprop) of the virtual phone.

export const PRODUCT = { name: "phoneloop_vphone", model: "PhoneLoop Virtual", device: "vphone", manufacturer: "PhoneLoop", brand: "phoneloop" };

export function systemProperties(o: { serial: string; model?: string; density: number }): Record<string, string> {
  const model = o.model ?? PRODUCT.model;
  return {
    "ro.product.name": PRODUCT.name,
    "ro.product.model": model,
    "ro.product.device": PRODUCT.device,
    "ro.product.brand": PRODUCT.brand,
    "ro.product.manufacturer": PRODUCT.manufacturer,
    "ro.product.cpu.abi": "x86_64",
    "ro.product.cpu.abilist": "x86_64,arm64-v8a",
    "ro.product.locale": "en-US",
    "ro.build.version.release": "14",
    "ro.build.version.sdk": "34",
    "ro.build.version.security_patch": "2026-11-05",
    "ro.build.id": "UQ1A.240105.004",
    "ro.build.type": "user",
    "ro.build.tags": "release-keys",
    "ro.build.fingerprint": `${PRODUCT.brand}/${PRODUCT.name}/${PRODUCT.device}:14/UQ1A.240105.004/11206848:user/release-keys`,
    "ro.build.characteristics": "default",
    "ro.serialno": o.serial,
    "ro.boot.serialno": o.serial,
    "ro.sf.lcd_density": String(o.density),
    "ro.debuggable": "0",
    "ro.secure": "1",
    "ro.adb.secure": "1",
    "ro.hardware": "ranchu",
    "ro.kernel.qemu": "0",
    "ro.crypto.state": "encrypted",
    "persist.sys.timezone": "UTC",
    "persist.sys.locale": "en-US",
    "sys.boot_completed": "1",
    "dev.bootcomplete": "1",
    "init.svc.adbd": "running",
    "service.adb.root": "0",
    "gsm.operator.alpha": "PhoneLoop Mobile",
    "net.bt.name": "Android",
    "wifi.interface": "wlan0",
  };
}
