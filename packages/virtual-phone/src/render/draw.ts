// Paints a laid-out screen onto a canvas and encodes it as PNG.
import { createCanvas, type Canvas, type SKRSContext2D } from "@napi-rs/canvas";
import { deflate, deflateSync, crc32 } from "node:zlib";
import { promisify } from "node:util";
import { ensureFonts, font } from "./fonts.ts";
import type { PaintOp, ScreenLayout } from "./view.ts";
import type { Measure } from "./layout.ts";

ensureFonts();

const measureCtx = createCanvas(8, 8).getContext("2d");
const measureCache = new Map<string, number>();
/** Measures with the real fonts the renderer draws with, so layout and pixels agree. */
export const canvasMeasure: Measure = (text, size, bold = false) => {
  const key = `${bold ? "b" : "n"}${Math.round(size)}|${text}`;
  let w = measureCache.get(key);
  if (w === undefined) {
    measureCtx.font = font(size, bold ? "bold" : "normal");
    w = measureCtx.measureText(text).width;
    if (measureCache.size > 20_000) measureCache.clear();
    measureCache.set(key, w);
  }
  return w;
};

function roundRect(ctx: SKRSContext2D, x: number, y: number, w: number, h: number, r: number | [number, number, number, number]) {
  ctx.beginPath();
  ctx.roundRect(x, y, w, h, r);
}

function drawIcon(ctx: SKRSContext2D, name: string, cx: number, cy: number, s: number, color: string): void {
  ctx.save();
  ctx.strokeStyle = color;
  ctx.fillStyle = color;
  ctx.lineWidth = Math.max(2, s / 9);
  ctx.lineCap = "round";
  ctx.lineJoin = "round";
  const h = s / 2;
  ctx.beginPath();
  switch (name) {
    case "arrow_back":
      ctx.moveTo(cx + h * 0.8, cy);
      ctx.lineTo(cx - h * 0.8, cy);
      ctx.moveTo(cx - h * 0.1, cy - h * 0.7);
      ctx.lineTo(cx - h * 0.8, cy);
      ctx.lineTo(cx - h * 0.1, cy + h * 0.7);
      ctx.stroke();
      break;
    case "search":
      ctx.arc(cx - h * 0.15, cy - h * 0.15, h * 0.55, 0, Math.PI * 2);
      ctx.moveTo(cx + h * 0.25, cy + h * 0.25);
      ctx.lineTo(cx + h * 0.8, cy + h * 0.8);
      ctx.stroke();
      break;
    case "more":
      for (const dy of [-0.6, 0, 0.6]) {
        ctx.moveTo(cx + h * 0.12, cy + dy * h);
        ctx.arc(cx, cy + dy * h, h * 0.12, 0, Math.PI * 2);
      }
      ctx.fill();
      break;
    case "add":
    case "edit":
      ctx.moveTo(cx - h * 0.7, cy);
      ctx.lineTo(cx + h * 0.7, cy);
      if (name === "add") {
        ctx.moveTo(cx, cy - h * 0.7);
        ctx.lineTo(cx, cy + h * 0.7);
      }
      ctx.stroke();
      break;
    case "close":
      ctx.moveTo(cx - h * 0.6, cy - h * 0.6);
      ctx.lineTo(cx + h * 0.6, cy + h * 0.6);
      ctx.moveTo(cx + h * 0.6, cy - h * 0.6);
      ctx.lineTo(cx - h * 0.6, cy + h * 0.6);
      ctx.stroke();
      break;
    case "check":
      ctx.moveTo(cx - h * 0.6, cy);
      ctx.lineTo(cx - h * 0.15, cy + h * 0.45);
      ctx.lineTo(cx + h * 0.65, cy - h * 0.45);
      ctx.stroke();
      break;
    case "chevron":
      ctx.moveTo(cx - h * 0.3, cy - h * 0.6);
      ctx.lineTo(cx + h * 0.3, cy);
      ctx.lineTo(cx - h * 0.3, cy + h * 0.6);
      ctx.stroke();
      break;
    case "send":
      ctx.moveTo(cx - h * 0.8, cy - h * 0.7);
      ctx.lineTo(cx + h * 0.8, cy);
      ctx.lineTo(cx - h * 0.8, cy + h * 0.7);
      ctx.lineTo(cx - h * 0.5, cy);
      ctx.closePath();
      ctx.fill();
      break;
    case "home":
    case "nav_home":
      if (name === "nav_home") {
        ctx.arc(cx, cy, h * 0.7, 0, Math.PI * 2);
        ctx.stroke();
        break;
      }
      ctx.moveTo(cx - h * 0.75, cy - h * 0.05);
      ctx.lineTo(cx, cy - h * 0.75);
      ctx.lineTo(cx + h * 0.75, cy - h * 0.05);
      ctx.moveTo(cx - h * 0.5, cy - h * 0.25);
      ctx.lineTo(cx - h * 0.5, cy + h * 0.7);
      ctx.lineTo(cx + h * 0.5, cy + h * 0.7);
      ctx.lineTo(cx + h * 0.5, cy - h * 0.25);
      ctx.stroke();
      break;
    case "nav_back":
      ctx.moveTo(cx + h * 0.55, cy - h * 0.7);
      ctx.lineTo(cx - h * 0.65, cy);
      ctx.lineTo(cx + h * 0.55, cy + h * 0.7);
      ctx.closePath();
      ctx.stroke();
      break;
    case "nav_recents":
      ctx.roundRect(cx - h * 0.6, cy - h * 0.6, h * 1.2, h * 1.2, h * 0.15);
      ctx.stroke();
      break;
    case "battery":
      ctx.lineWidth = Math.max(1.5, s / 12);
      ctx.roundRect(cx - h * 0.45, cy - h * 0.8, h * 0.9, h * 1.6, h * 0.15);
      ctx.stroke();
      ctx.fillRect(cx - h * 0.3, cy - h * 0.35, h * 0.6, h * 1.0);
      ctx.fillRect(cx - h * 0.2, cy - h, h * 0.4, h * 0.2);
      break;
    case "signal":
      ctx.moveTo(cx + h, cy - h);
      ctx.lineTo(cx + h, cy + h);
      ctx.lineTo(cx - h, cy + h);
      ctx.closePath();
      ctx.fill();
      break;
    case "wifi":
      ctx.moveTo(cx, cy + h * 0.8);
      ctx.arc(cx, cy + h * 0.8, h * 1.5, -Math.PI * 0.75, -Math.PI * 0.25);
      ctx.closePath();
      ctx.fill();
      break;
    case "person":
      ctx.arc(cx, cy - h * 0.35, h * 0.35, 0, Math.PI * 2);
      ctx.moveTo(cx + h * 0.7, cy + h * 0.8);
      ctx.arc(cx, cy + h * 0.8, h * 0.7, 0, Math.PI, true);
      ctx.fill();
      break;
    case "heart":
      ctx.moveTo(cx, cy + h * 0.7);
      ctx.bezierCurveTo(cx - h * 1.2, cy - h * 0.1, cx - h * 0.5, cy - h * 1.0, cx, cy - h * 0.35);
      ctx.bezierCurveTo(cx + h * 0.5, cy - h * 1.0, cx + h * 1.2, cy - h * 0.1, cx, cy + h * 0.7);
      ctx.fill();
      break;
    case "cart":
      ctx.moveTo(cx - h * 0.9, cy - h * 0.7);
      ctx.lineTo(cx - h * 0.6, cy - h * 0.7);
      ctx.lineTo(cx - h * 0.35, cy + h * 0.35);
      ctx.lineTo(cx + h * 0.65, cy + h * 0.35);
      ctx.lineTo(cx + h * 0.85, cy - h * 0.4);
      ctx.lineTo(cx - h * 0.5, cy - h * 0.4);
      ctx.stroke();
      ctx.beginPath();
      ctx.arc(cx - h * 0.25, cy + h * 0.7, h * 0.13, 0, Math.PI * 2);
      ctx.arc(cx + h * 0.55, cy + h * 0.7, h * 0.13, 0, Math.PI * 2);
      ctx.fill();
      break;
    case "menu":
    case "list":
      for (const dy of [-0.55, 0, 0.55]) {
        ctx.moveTo(cx - h * 0.75, cy + dy * h);
        ctx.lineTo(cx + h * 0.75, cy + dy * h);
      }
      ctx.stroke();
      break;
    case "alarm":
    case "clock":
      ctx.arc(cx, cy, h * 0.8, 0, Math.PI * 2);
      ctx.moveTo(cx, cy - h * 0.5);
      ctx.lineTo(cx, cy);
      ctx.lineTo(cx + h * 0.35, cy + h * 0.25);
      ctx.stroke();
      break;
    case "settings":
      ctx.arc(cx, cy, h * 0.7, 0, Math.PI * 2);
      ctx.stroke();
      ctx.beginPath();
      ctx.arc(cx, cy, h * 0.25, 0, Math.PI * 2);
      ctx.fill();
      break;
    case "calendar":
    case "event":
      ctx.roundRect(cx - h * 0.75, cy - h * 0.65, h * 1.5, h * 1.4, h * 0.15);
      ctx.moveTo(cx - h * 0.75, cy - h * 0.25);
      ctx.lineTo(cx + h * 0.75, cy - h * 0.25);
      ctx.stroke();
      break;
    case "mail":
    case "chat":
      ctx.roundRect(cx - h * 0.8, cy - h * 0.6, h * 1.6, h * 1.2, h * 0.15);
      ctx.moveTo(cx - h * 0.8, cy - h * 0.5);
      ctx.lineTo(cx, cy + h * 0.1);
      ctx.lineTo(cx + h * 0.8, cy - h * 0.5);
      ctx.stroke();
      break;
    default:
      ctx.font = font(s * 0.9, "bold");
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillText(name.length <= 2 ? name : name[0]!.toUpperCase(), cx, cy);
  }
  ctx.restore();
}

export function paint(ctx: SKRSContext2D, ops: PaintOp[]): void {
  ctx.textBaseline = "alphabetic";
  for (const o of ops) {
    switch (o.op) {
      case "rect":
        if (o.r) {
          roundRect(ctx, o.x, o.y, o.w, o.h, o.r);
          if (o.fill) {
            ctx.fillStyle = o.fill;
            ctx.fill();
          }
          if (o.stroke) {
            ctx.strokeStyle = o.stroke;
            ctx.lineWidth = o.lw ?? 1;
            ctx.stroke();
          }
        } else {
          if (o.fill) {
            ctx.fillStyle = o.fill;
            ctx.fillRect(o.x, o.y, o.w, o.h);
          }
          if (o.stroke) {
            ctx.strokeStyle = o.stroke;
            ctx.lineWidth = o.lw ?? 1;
            ctx.strokeRect(o.x, o.y, o.w, o.h);
          }
        }
        break;
      case "text":
        ctx.font = font(o.size, o.bold ? "bold" : "normal");
        ctx.fillStyle = o.color;
        ctx.textAlign = o.align ?? "left";
        ctx.fillText(o.text, o.x, o.y);
        break;
      case "circle":
        ctx.beginPath();
        ctx.arc(o.cx, o.cy, o.r, 0, Math.PI * 2);
        if (o.fill) {
          ctx.fillStyle = o.fill;
          ctx.fill();
        }
        if (o.stroke) {
          ctx.strokeStyle = o.stroke;
          ctx.lineWidth = o.lw ?? 1;
          ctx.stroke();
        }
        break;
      case "line":
        ctx.beginPath();
        ctx.strokeStyle = o.color;
        ctx.lineWidth = o.lw;
        ctx.moveTo(o.x1, o.y1);
        ctx.lineTo(o.x2, o.y2);
        ctx.stroke();
        break;
      case "icon":
        drawIcon(ctx, o.name, o.cx, o.cy, o.size, o.color);
        break;
      case "gradient": {
        const g = ctx.createLinearGradient(o.x, o.y, o.x, o.y + o.h);
        g.addColorStop(0, o.from);
        g.addColorStop(1, o.to);
        ctx.fillStyle = g;
        ctx.fillRect(o.x, o.y, o.w, o.h);
        break;
      }
      case "clip":
        ctx.save();
        ctx.beginPath();
        ctx.rect(o.x, o.y, o.w, o.h);
        ctx.clip();
        break;
      case "unclip":
        ctx.restore();
        break;
    }
  }
}

let surface: { canvas: Canvas; width: number; height: number } | null = null;

/**
 * Renders to raw RGBA pixels. One canvas is reused, and its pixels are read without the un-premultiply copy
 * getImageData makes (the screen is opaque, so premultiplied equals straight). The buffer is valid until the
 * next render: encode or copy it first.
 */
export function renderRgba(layout: ScreenLayout): { width: number; height: number; rgba: Buffer } {
  if (!surface || surface.width !== layout.width || surface.height !== layout.height) {
    surface = { canvas: createCanvas(layout.width, layout.height), width: layout.width, height: layout.height };
  }
  const canvas = surface.canvas;
  const ctx = canvas.getContext("2d");
  ctx.save();
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, layout.width, layout.height);
  paint(ctx, layout.ops);
  ctx.restore();
  return { width: layout.width, height: layout.height, rgba: canvas.data() };
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td) >>> 0);
  return Buffer.concat([len, td, crc]);
}

function filterRows(width: number, height: number, rgba: Buffer): Buffer {
  const rowBytes = width * 4;
  const raw = Buffer.alloc((rowBytes + 1) * height);
  for (let y = 0; y < height; y++) rgba.copy(raw, y * (rowBytes + 1) + 1, y * rowBytes, (y + 1) * rowBytes);
  return raw;
}

function assemble(width: number, height: number, idat: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // colour type RGBA
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", ihdr), chunk("IDAT", idat), chunk("IEND", Buffer.alloc(0))]);
}

const ZLIB = { level: 1, memLevel: 9 } as const;

/**
 * Encodes an RGBA PNG (what Android's screencap -p writes) with filter "none" and zlib level 1:
 * on flat app screens this is several times faster than the canvas default at a similar size.
 */
export function encodePng(width: number, height: number, rgba: Buffer): Buffer {
  return assemble(width, height, deflateSync(filterRows(width, height, rgba), ZLIB));
}

const deflateAsync = promisify(deflate);

/** The same PNG, compressed on the libuv thread pool so UI dumps and dumpsys can run meanwhile. */
export async function encodePngAsync(width: number, height: number, rgba: Buffer): Promise<Buffer> {
  const raw = filterRows(width, height, rgba); // copies the pixels: the canvas may be reused while zlib runs
  return assemble(width, height, await deflateAsync(raw, ZLIB));
}
