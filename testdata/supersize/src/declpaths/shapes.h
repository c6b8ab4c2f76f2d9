// Attribution beyond SuperSize: functions defined in this header (a template, an inline
// function) and a variable declared here but defined in counter.cpp.
#pragma once
template <typename T>
__attribute__((noinline)) T scaled(T v, int k) { return v * k + 1; }
inline __attribute__((noinline)) int header_inline(int x) { return x * 3 - 1; }
extern int g_counter;
