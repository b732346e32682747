/**
 * PDFium (the PDF engine of Chromium, Apache-2.0) compiled to WebAssembly, from the
 * `@embedpdf/pdfium` package. The .wasm binary ships inside the package and is read from
 * node_modules: nothing is downloaded at run time.
 *
 * The tools call PDFium's C API through the raw WebAssembly exports rather than the
 * package's cwrap'd functions: a text page is read one character at a time (a few calls per
 * character, hundreds of thousands per document), and the raw exports skip the argument
 * conversion and assertion wrappers of each call.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { init } from '@embedpdf/pdfium';

/** The subset of PDFium's C API the tools use; pointers and handles are WebAssembly addresses. */
export interface PdfiumExports {
  malloc(size: number): number;
  free(ptr: number): void;
  FPDF_LoadMemDocument(data: number, size: number, password: number): number;
  FPDF_GetLastError(): number;
  FPDF_CloseDocument(doc: number): void;
  FPDF_GetPageCount(doc: number): number;
  FPDF_LoadPage(doc: number, index: number): number;
  FPDF_GetPageSizeByIndexF(doc: number, index: number, size: number): number;
  FPDF_ClosePage(page: number): void;
  FPDF_GetPageBoundingBox(page: number, rect: number): number;
  FPDFPage_GetRotation(page: number): number;
  FPDFText_LoadPage(page: number): number;
  FPDFText_ClosePage(textPage: number): void;
  FPDFText_CountChars(textPage: number): number;
  FPDFText_GetUnicode(textPage: number, index: number): number;
  FPDFText_IsGenerated(textPage: number, index: number): number;
  FPDFText_GetTextObject(textPage: number, index: number): number;
  FPDFText_GetCharBox(textPage: number, index: number, left: number, right: number, bottom: number, top: number): number;
  FPDFText_GetLooseCharBox(textPage: number, index: number, rect: number): number;
  FPDFText_GetCharOrigin(textPage: number, index: number, x: number, y: number): number;
  FPDFText_GetMatrix(textPage: number, index: number, matrix: number): number;
  FPDFText_GetFontSize(textPage: number, index: number): number;
  FPDFTextObj_GetFont(textObject: number): number;
  FPDFFont_GetBaseFontName(font: number, buffer: number, length: number): number;
  FPDFPage_CountObjects(page: number): number;
  FPDFPage_GetObject(page: number, index: number): number;
  FPDFPageObj_GetType(object: number): number;
  FPDFPageObj_GetMatrix(object: number, matrix: number): number;
  FPDFPageObj_GetBounds(object: number, left: number, bottom: number, right: number, top: number): number;
  FPDFFormObj_CountObjects(form: number): number;
  FPDFFormObj_GetObject(form: number, index: number): number;
  FPDFPath_GetDrawMode(path: number, fillMode: number, stroke: number): number;
  FPDFPath_CountSegments(path: number): number;
  FPDFPath_GetPathSegment(path: number, index: number): number;
  FPDFPathSegment_GetPoint(segment: number, x: number, y: number): number;
  FPDFPathSegment_GetType(segment: number): number;
  FPDFPathSegment_GetClose(segment: number): number;
  FPDFBookmark_GetFirstChild(doc: number, bookmark: number): number;
  FPDFBookmark_GetNextSibling(doc: number, bookmark: number): number;
  FPDFBookmark_GetTitle(bookmark: number, buffer: number, length: number): number;
  FPDFBookmark_GetDest(doc: number, bookmark: number): number;
  FPDFBookmark_GetAction(bookmark: number): number;
  FPDFAction_GetDest(doc: number, action: number): number;
  FPDFDest_GetDestPageIndex(doc: number, dest: number): number;
  FPDFBitmap_Create(width: number, height: number, alpha: number): number;
  FPDFBitmap_FillRect(bitmap: number, left: number, top: number, width: number, height: number, color: number): number;
  FPDFBitmap_GetBuffer(bitmap: number): number;
  FPDFBitmap_GetStride(bitmap: number): number;
  FPDFBitmap_Destroy(bitmap: number): void;
  FPDF_RenderPageBitmap(bitmap: number, page: number, x: number, y: number, width: number, height: number, rotate: number, flags: number): void;
}

export interface Pdfium {
  x: PdfiumExports;
  /** Views of the WebAssembly memory; re-read after any call that may allocate (memory growth replaces them). */
  u8(): Uint8Array;
  f32(): Float32Array;
  f64(): Float64Array;
  /** Current size of the WebAssembly memory in bytes (it grows, never shrinks). */
  memoryBytes(): number;
  /** True once the instance crashed and was dropped: handles into it must not be closed. */
  discarded(): boolean;
}

interface EmscriptenPdfium {
  wasmExports: PdfiumExports & { memory: { buffer: ArrayBuffer } };
  HEAPU8: Uint8Array;
  HEAPF32: Float32Array;
  HEAPF64: Float64Array;
}

let loading: Promise<Pdfium> | null = null;
let loaded: (Pdfium & { markDiscarded(): void }) | null = null;

/**
 * A WebAssembly trap (PDFium hit a CHECK or an abort on a hostile file) leaves the instance's
 * memory in an unknown state: never call into it again.
 */
export const isPdfiumCrash = (error: unknown): boolean => {
  const RuntimeError = (globalThis as { WebAssembly?: { RuntimeError?: new () => Error } }).WebAssembly?.RuntimeError;
  return !!RuntimeError && error instanceof RuntimeError;
};

/**
 * Drops this thread's instance after a crash; the next loadPdfium() compiles a fresh one and
 * the old memory goes with the last document that refers to it.
 */
export function discardPdfium(): void {
  loaded?.markDiscarded();
  loading = null;
  loaded = null;
}

/** Bytes of this thread's PDFium memory; 0 before PDFium is loaded. */
export const pdfiumMemoryBytes = (): number => loaded?.memoryBytes() ?? 0;

/**
 * The thread's PDFium instance, created on first use (~150 ms: compiling 4.6 MB of
 * WebAssembly). One per thread is what a worker needs; it is never shared across threads.
 */
export function loadPdfium(): Promise<Pdfium> {
  loading ??= (async () => {
    const wasmBinary = readFileSync(createRequire(import.meta.url).resolve('@embedpdf/pdfium/pdfium.wasm'));
    const wrapped = await init({ wasmBinary } as Parameters<typeof init>[0]);
    wrapped.PDFiumExt_Init();
    const em = wrapped.pdfium as unknown as EmscriptenPdfium;
    const x = em.wasmExports;
    let dead = false;
    const instance = {
      x,
      u8: () => em.HEAPU8,
      f32: () => em.HEAPF32,
      f64: () => em.HEAPF64,
      memoryBytes: () => x.memory.buffer.byteLength,
      discarded: () => dead,
      markDiscarded: () => void (dead = true),
    };
    loaded = instance;
    return instance;
  })();
  loading.catch(() => (loading = null));
  return loading;
}
