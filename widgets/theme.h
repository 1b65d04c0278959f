// SPDX-License-Identifier: MIT
#pragma once

#include "environment.h"

#include <patterns/objecthealth.h>

#include <QColor>
#include <QFont>
#include <QPalette>

namespace gatehouse::theme {

// The console's two palettes. Every text colour below is chosen against its
// background for a contrast of at least 4.5:1 (WCAG AA), and tst_theme
// computes it: chart titles, series, badges and greyed ("gone") rows included.
enum class Scheme { Light, Dark };

QPalette palette(Scheme scheme);
// Light or dark by the window colour's lightness (the desktop's palette).
Scheme schemeOf(const QPalette &palette);
// Fusion with palette(scheme), application-wide.
void apply(Scheme scheme);
// "light", "dark"; nullopt for anything else.
std::optional<Scheme> schemeFromName(const QString &name);
// Where the console remembers the palette chosen in View > Palette
// ("light" or "dark"; QSettings).
inline constexpr char SettingsKey[] = "palette";

struct Badge
{
    QColor text;
    QColor fill;
};
// A state's badge (the Status cell, the side list's counts): its words in
// text on fill.
Badge badge(Severity severity, const QPalette &palette);
// A connection's environment badge (the status bar, a confirmation's top
// line): strong fills that stand out from the window, their text bold.
Badge environmentBadge(Environment::Colour colour, const QPalette &palette);
// Greyed rows (gone, stale, disconnected): readable on Base, visibly dimmer
// than Text.
QColor mutedText(const QPalette &palette);
// Chart series i (and sparklines) on Base.
QColor series(int i, const QPalette &palette);
// The limit line and its label.
QColor limit(const QPalette &palette);

// A fixed-pitch font for payloads, scripts and logs: the platform's fixed
// font when it is one (desktops), else the "monospace" fontconfig alias,
// else the first installed fixed-pitch family. Platforms without a theme
// font (offscreen, minimal window managers) hand out the proportional
// default as "FixedFont"; this never does while a fixed family exists.
QFont fixedPitchFont();

// WCAG 2 contrast ratio of two opaque colours, 1..21.
double contrast(const QColor &a, const QColor &b);

} // namespace gatehouse::theme
