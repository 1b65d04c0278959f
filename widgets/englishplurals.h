// SPDX-License-Identifier: MIT
#pragma once

#include <QTranslator>

namespace gatehouse {

// English plurals for the console's own strings, which ship without a .qm:
// tr("%n job(s)", nullptr, n) reads "1 job" and "2 jobs", not "1 job(s)".
// Installed once by the application (and by GUI tests) before any window.
class EnglishPlurals final : public QTranslator
{
public:
    using QTranslator::QTranslator;
    bool isEmpty() const override { return false; }
    QString translate(const char *context, const char *sourceText,
                      const char *disambiguation = nullptr, int n = -1) const override;

    // "job(s)" with n: "job" for 1, "jobs" otherwise; "(es)" alike.
    static QString resolve(const QString &text, int n);
};

} // namespace gatehouse
