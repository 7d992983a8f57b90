// The display as dumpsys reports it: the panel's own size, the current rotation, and the rotated logical size
// (what clients read to know the orientation: DisplayViewport orientation=, SurfaceOrientation, cur=WxH).
import type { PhoneEngine } from "../../engine.ts";

/** The built-in panel's physical display id, as SurfaceFlinger names it. */
export const PHYSICAL_DISPLAY_ID = "4619827259835644672";

function view(phone: PhoneEngine) {
  const panel = phone.device;
  const s = phone.runtime.screen;
  return { panel, w: s.width, h: s.height, rotation: s.rotation, density: s.density, on: phone.runtime.state.screenOn };
}

export function dumpsysDisplay(phone: PhoneEngine): string {
  const { panel, w, h, rotation, density, on } = view(phone);
  const state = on ? "ON" : "OFF";
  const short = Math.min(w, h);
  const long = Math.max(w, h);
  return [
    "DISPLAY MANAGER (dumpsys display)",
    "  mOnlyCore=false",
    "  mSafeMode=false",
    "  mPendingTraversal=false",
    `  mGlobalDisplayState=${state}`,
    `  mViewports=[DisplayViewport{type=INTERNAL, valid=true, isActive=true, displayId=0, uniqueId='local:${PHYSICAL_DISPLAY_ID}', physicalPort=0, orientation=${rotation}, logicalFrame=Rect(0, 0 - ${w}, ${h}), physicalFrame=Rect(0, 0 - ${w}, ${h}), deviceWidth=${w}, deviceHeight=${h}}]`,
    "",
    "Display Devices: size=1",
    `  DisplayDeviceInfo{"Built-in Screen": uniqueId="local:${PHYSICAL_DISPLAY_ID}", ${panel.width} x ${panel.height}, modeId 1, defaultModeId 1, density ${density}, ${density}.0 x ${density}.0 dpi, appVsyncOff 0, presDeadline 16666666, touch INTERNAL, rotation 0, type INTERNAL, address {port=0, model=0x0}, state ${state}, FLAG_DEFAULT_DISPLAY, FLAG_ROTATES_WITH_CONTENT}`,
    "",
    "Logical Displays: size=1",
    "  Display 0:",
    `    mOverrideDisplayInfo=DisplayInfo{"Built-in Screen", displayId 0, displayGroupId 0, FLAG_SECURE, FLAG_SUPPORTS_PROTECTED_BUFFERS, FLAG_TRUSTED, real ${w} x ${h}, largest app ${long} x ${long}, smallest app ${short} x ${short}, appVsyncOff 0, presDeadline 16666666, mode 1, defaultMode 1, density ${density} (${density}.0 x ${density}.0) dpi, rotation ${rotation}, type INTERNAL, address {port=0, model=0x0}, state ${state}, uniqueId "local:${PHYSICAL_DISPLAY_ID}"}`,
    `    mCurrentOrientation=${rotation}`,
    "",
  ].join("\n");
}

export function dumpsysInput(phone: PhoneEngine): string {
  const { w, h, rotation } = view(phone);
  return [
    "INPUT MANAGER (dumpsys input)",
    "",
    "Input Reader State (Nums of device: 1):",
    "  Device 2: virtio_input_multi_touch",
    "    EventHub Devices: [ 2 ]",
    "    Generation: 2",
    "    IsExternal: false",
    "    Sources: TOUCHSCREEN",
    "    KeyboardType: None",
    "    Touch Input Mapper (mode - DIRECT):",
    "      Parameters:",
    "        DeviceType: touchScreen",
    "        AssociatedDisplay: hasAssociatedDisplay=true, isExternal=false, displayId=''",
    "        OrientationAware: true",
    `      Viewport INTERNAL: displayId=0, uniqueId=local:${PHYSICAL_DISPLAY_ID}, port=0, orientation=${rotation}, logicalFrame=[0, 0, ${w}, ${h}], physicalFrame=[0, 0, ${w}, ${h}], deviceSize=[${w}, ${h}], isActive=[1]`,
    `      SurfaceWidth: ${w}px`,
    `      SurfaceHeight: ${h}px`,
    "      SurfaceLeft: 0",
    "      SurfaceTop: 0",
    `      SurfaceOrientation: ${rotation}`,
    "",
    "Input Dispatcher State:",
    `  FocusedDisplayId: 0`,
    `  FocusedWindows:`,
    `    displayId=0, name='${focusName(phone)}'`,
    "",
  ].join("\n");
}

function focusName(phone: PhoneEngine): string {
  const fw = phone.runtime.focusedWindow();
  return fw.activity.includes(".") ? `${fw.package}/${fw.activity}` : fw.activity;
}

/** `dumpsys SurfaceFlinger --display-id` (other SurfaceFlinger dumps are not kept). */
export function dumpsysSurfaceFlinger(phone: PhoneEngine, args: string[]): string | null {
  if (!args.includes("--display-id")) return null;
  return `Display ${PHYSICAL_DISPLAY_ID} (HWC display 0): port=0 pnpId=GGL displayName="${phone.props["ro.product.model"] ?? "Built-in Screen"}"\n`;
}

/** `dumpsys window displays`: init is the panel, cur and app the rotated size. */
export function dumpsysWindowDisplays(phone: PhoneEngine): string {
  const { panel, w, h, rotation, density } = view(phone);
  return `WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n  Display: mDisplayId=0 rootTasks=3\n    init=${panel.width}x${panel.height} ${density}dpi cur=${w}x${h} app=${w}x${h} rng=${Math.min(w, h)}x${Math.min(w, h)}-${Math.max(w, h)}x${Math.max(w, h)}\n    mDisplayRotation=ROTATION_${rotation * 90} mCurrentOrientation=${rotation}\n`;
}

/** The configuration line of `dumpsys window` in the current rotation and locale. */
export function globalConfiguration(phone: PhoneEngine): string {
  const { w, h, rotation, density } = view(phone);
  const dp = (n: number) => Math.round((n * 160) / density);
  const locale = phone.runtime.state.locale.replace("-", "_");
  const rot = `ROTATION_${rotation * 90}`;
  return `  mGlobalConfiguration={1.0 310mcc260mnc [${locale}] ldltr sw${dp(Math.min(w, h))}dp w${dp(w)}dp h${dp(h)}dp ${density}dpi nrml long ${w > h ? "land" : "port"} finger -keyb/v/h -nav/h winConfig={ mBounds=Rect(0, 0 - ${w}, ${h}) mAppBounds=Rect(0, 0 - ${w}, ${h}) mMaxBounds=Rect(0, 0 - ${w}, ${h}) mDisplayRotation=${rot} mWindowingMode=fullscreen mActivityType=undefined mAlwaysOnTop=undefined mRotation=${rot}} s.6 fontWeightAdjustment=0}`;
}
