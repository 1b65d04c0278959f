// SPDX-License-Identifier: MIT
#include "globmatch.h"

namespace gatehouse {

namespace {

// Matches a class starting after '[' at p; returns the index after ']' and
// sets matched; -1 when the class is not closed (then '[' is a literal).
qsizetype matchClass(const QByteArray &pat, qsizetype p, char c, bool *matched)
{
    bool negate = false;
    if (p < pat.size() && pat.at(p) == '^') {
        negate = true;
        ++p;
    }
    bool found = false;
    for (; p < pat.size() && pat.at(p) != ']'; ++p) {
        if (pat.at(p) == '\\' && p + 1 < pat.size()) {
            found |= pat.at(++p) == c;
        } else if (p + 2 < pat.size() && pat.at(p + 1) == '-' && pat.at(p + 2) != ']') {
            char lo = pat.at(p);
            char hi = pat.at(p + 2);
            if (lo > hi)
                std::swap(lo, hi);
            found |= c >= lo && c <= hi;
            p += 2;
        } else {
            found |= pat.at(p) == c;
        }
    }
    if (p >= pat.size())
        return -1;
    *matched = found != negate;
    return p + 1;
}

} // namespace

bool globMatch(const QByteArray &pat, const QByteArray &text)
{
    // Iterative with one backtrack point for the last '*': linear in practice.
    qsizetype p = 0;
    qsizetype t = 0;
    qsizetype starP = -1;
    qsizetype starT = 0;
    while (t < text.size()) {
        if (p < pat.size()) {
            const char pc = pat.at(p);
            if (pc == '*') {
                starP = ++p;
                starT = t;
                continue;
            }
            if (pc == '?') {
                ++p;
                ++t;
                continue;
            }
            if (pc == '[') {
                bool matched = false;
                const qsizetype next = matchClass(pat, p + 1, text.at(t), &matched);
                if (next >= 0) {
                    if (matched) {
                        p = next;
                        ++t;
                        continue;
                    }
                } else if (text.at(t) == '[') {
                    ++p;
                    ++t;
                    continue;
                }
            } else {
                const bool escaped = pc == '\\' && p + 1 < pat.size();
                const char lit = escaped ? pat.at(p + 1) : pc;
                if (lit == text.at(t)) {
                    p += escaped ? 2 : 1;
                    ++t;
                    continue;
                }
            }
        }
        if (starP < 0)
            return false;
        p = starP;
        t = ++starT;
    }
    while (p < pat.size() && pat.at(p) == '*')
        ++p;
    return p == pat.size();
}

} // namespace gatehouse
