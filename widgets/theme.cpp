// SPDX-License-Identifier: MIT
#include "theme.h"

#include <QApplication>
#include <QFontDatabase>
#include <QFontInfo>
#include <QStyleFactory>

#include <cmath>

namespace gatehouse::theme {

namespace {

bool isDark(const QPalette &p)
{
    return p.color(QPalette::Base).lightnessF() < 0.5;
}

double linear(double c)
{
    return c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

double luminance(const QColor &c)
{
    return 0.2126 * linear(c.redF()) + 0.7152 * linear(c.greenF()) + 0.0722 * linear(c.blueF());
}

} // namespace

QPalette palette(Scheme scheme)
{
    const bool dark = scheme == Scheme::Dark;
    const QColor window = dark ? QColor(0x2b, 0x2b, 0x2b) : QColor(0xf3, 0xf3, 0xf3);
    const QColor base = dark ? QColor(0x1e, 0x1e, 0x1e) : QColor(0xff, 0xff, 0xff);
    const QColor alternate = dark ? QColor(0x26, 0x26, 0x26) : QColor(0xf6, 0xf7, 0xf9);
    const QColor text = dark ? QColor(0xe8, 0xe8, 0xe8) : QColor(0x1f, 0x1f, 0x1f);
    const QColor button = dark ? QColor(0x3a, 0x3a, 0x3a) : QColor(0xe9, 0xe9, 0xe9);
    const QColor highlight = dark ? QColor(0x2f, 0x5f, 0xa8) : QColor(0x1a, 0x5f, 0xb4);
    // Disabled text stays readable (>= 4.5:1): a greyed table is still read.
    const QColor disabled = dark ? QColor(0xa8, 0xa8, 0xa8) : QColor(0x5f, 0x5f, 0x5f);
    QPalette p;
    for (QPalette::ColorGroup g : {QPalette::Active, QPalette::Inactive, QPalette::Disabled}) {
        p.setColor(g, QPalette::Window, window);
        p.setColor(g, QPalette::Base, base);
        p.setColor(g, QPalette::AlternateBase, alternate);
        p.setColor(g, QPalette::ToolTipBase,
                   dark ? QColor(0x3a, 0x3a, 0x3a) : QColor(0xff, 0xff, 0xe8));
        p.setColor(g, QPalette::ToolTipText, text);
        p.setColor(g, QPalette::Button, button);
        p.setColor(g, QPalette::Highlight, highlight);
        p.setColor(g, QPalette::HighlightedText, Qt::white);
        p.setColor(g, QPalette::Link, dark ? QColor(0x8a, 0xb4, 0xf8) : QColor(0x1a, 0x5f, 0xb4));
        p.setColor(g, QPalette::Mid, dark ? QColor(0x55, 0x55, 0x55) : QColor(0xb8, 0xb8, 0xb8));
        p.setColor(g, QPalette::Dark, dark ? QColor(0x18, 0x18, 0x18) : QColor(0x9a, 0x9a, 0x9a));
        p.setColor(g, QPalette::Light, dark ? QColor(0x4a, 0x4a, 0x4a) : Qt::white);
        p.setColor(g, QPalette::Shadow, Qt::black);
        p.setColor(g, QPalette::PlaceholderText, disabled);
        const QColor t = g == QPalette::Disabled ? disabled : text;
        p.setColor(g, QPalette::WindowText, t);
        p.setColor(g, QPalette::Text, t);
        p.setColor(g, QPalette::ButtonText, t);
        p.setColor(g, QPalette::BrightText, dark ? Qt::white : Qt::black);
    }
    return p;
}

Scheme schemeOf(const QPalette &p)
{
    return p.color(QPalette::Window).lightnessF() < 0.5 ? Scheme::Dark : Scheme::Light;
}

void apply(Scheme scheme)
{
    // Fusion draws with the palette alone: the same colours on every desktop.
    if (QStyle *fusion = QStyleFactory::create(QStringLiteral("Fusion")))
        QApplication::setStyle(fusion);
    QApplication::setPalette(palette(scheme));
}

std::optional<Scheme> schemeFromName(const QString &name)
{
    if (name == QLatin1String("light"))
        return Scheme::Light;
    if (name == QLatin1String("dark"))
        return Scheme::Dark;
    return std::nullopt;
}

Badge badge(Severity severity, const QPalette &p)
{
    const bool dark = isDark(p);
    switch (severity) {
    case Severity::Ok:
        return dark ? Badge{QColor(0x81, 0xc9, 0x95), QColor(0x1c, 0x33, 0x24)}
                    : Badge{QColor(0x13, 0x6b, 0x30), QColor(0xe6, 0xf4, 0xea)};
    case Severity::Muted:
        return dark ? Badge{QColor(0xbd, 0xbd, 0xbd), QColor(0x33, 0x33, 0x33)}
                    : Badge{QColor(0x5f, 0x63, 0x68), QColor(0xee, 0xee, 0xee)};
    case Severity::Warning:
        return dark ? Badge{QColor(0xfd, 0xd6, 0x63), QColor(0x3d, 0x30, 0x00)}
                    : Badge{QColor(0x80, 0x4d, 0x00), QColor(0xfe, 0xf3, 0xd6)};
    case Severity::Critical:
        return dark ? Badge{QColor(0xf6, 0xae, 0xa9), QColor(0x4a, 0x1c, 0x1a)}
                    : Badge{QColor(0xa5, 0x1d, 0x16), QColor(0xfc, 0xe8, 0xe6)};
    }
    return {p.color(QPalette::Text), p.color(QPalette::Base)};
}

Badge environmentBadge(Environment::Colour colour, const QPalette &p)
{
    // Light and dark alike: a saturated fill reads as a warning on either
    // window colour; the dark palette's fills are a shade deeper so they do
    // not glare.
    const bool dark = isDark(p);
    const QColor white(0xff, 0xff, 0xff);
    switch (colour) {
    case Environment::Colour::Red:
        return {white, dark ? QColor(0x9c, 0x1c, 0x15) : QColor(0xb3, 0x26, 0x1e)};
    case Environment::Colour::Amber:
        return {QColor(0x1f, 0x1f, 0x1f),
                dark ? QColor(0xe0, 0xa8, 0x00) : QColor(0xfb, 0xbc, 0x04)};
    case Environment::Colour::Green:
        return {white, dark ? QColor(0x1b, 0x5e, 0x2b) : QColor(0x1e, 0x6e, 0x34)};
    case Environment::Colour::Blue:
        return {white, dark ? QColor(0x17, 0x4e, 0xa6) : QColor(0x1a, 0x5f, 0xb4)};
    case Environment::Colour::Grey:
        break;
    }
    return {white, dark ? QColor(0x4a, 0x4a, 0x4a) : QColor(0x5f, 0x63, 0x68)};
}

QColor mutedText(const QPalette &p)
{
    return isDark(p) ? QColor(0xa8, 0xa8, 0xa8) : QColor(0x5f, 0x5f, 0x5f);
}

QColor series(int i, const QPalette &p)
{
    static const QColor light[] = {QColor(0x1a, 0x5f, 0xb4), QColor(0xb3, 0x26, 0x1e),
                                   QColor(0x1e, 0x6e, 0x34), QColor(0x8f, 0x4a, 0x00)};
    static const QColor dark[] = {QColor(0x7a, 0xb8, 0xf5), QColor(0xf2, 0x8b, 0x82),
                                  QColor(0x81, 0xc9, 0x95), QColor(0xfb, 0xbc, 0x04)};
    const int n = ((i % 4) + 4) % 4;
    return isDark(p) ? dark[n] : light[n];
}

QColor limit(const QPalette &p)
{
    return isDark(p) ? QColor(0xf2, 0x8b, 0x82) : QColor(0xb3, 0x26, 0x1e);
}

double contrast(const QColor &a, const QColor &b)
{
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QFont fixedPitchFont()
{
    QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    if (QFontInfo(font).fixedPitch())
        return font;
    font.setFamily(QStringLiteral("monospace"));
    font.setStyleHint(QFont::Monospace);
    font.setFixedPitch(true);
    if (QFontInfo(font).fixedPitch())
        return font;
    const QStringList families = QFontDatabase::families();
    for (const QString &family : families) {
        if (QFontDatabase::isFixedPitch(family) && !QFontDatabase::isPrivateFamily(family)) {
            font.setFamily(family);
            return font;
        }
    }
    return font;
}

} // namespace gatehouse::theme
