// SPDX-License-Identifier: MIT
#pragma once

#include <QMetaType>
#include <QString>
#include <QStringList>

#include <optional>

namespace gatehouse {

// A connection's environment as the operator names it ("production",
// "staging"; empty: none) and the colour it is marked in. The console's
// window title, its status bar and every action's confirmation show it; on
// a production connection (a label starting with "prod", in any case) an
// action runs only once the label is typed back (the console's dialog,
// gatehouse-cli's --confirm-environment).
struct Environment
{
    enum class Colour { Red, Amber, Green, Blue, Grey };

    QString label; // as typed; empty: no environment
    Colour colour = Colour::Grey;

    // label in its preset's colour (defaultColour).
    static Environment named(const QString &label);
    // production red, staging amber, development green, anything else grey.
    static Colour defaultColour(const QString &label);
    // The labels the connection dialog offers: production, staging, development.
    static QStringList presets();
    // "red", "amber", "green", "blue", "grey": as the settings file and
    // --environment-colour spell them.
    static QString colourName(Colour colour);
    static QStringList colourNames();
    static std::optional<Colour> colourFromName(const QString &name); // any case; "gray" too

    bool isSet() const { return !label.trimmed().isEmpty(); }
    bool isProduction() const;
    // The label as the title and the badges show it: "PRODUCTION".
    QString shown() const;
    // A window's title behind the label in brackets: "[PRODUCTION] title";
    // title itself when unset.
    QString titled(const QString &title) const;
    // True when typed is the label (trimmed, in any case).
    bool typedBack(const QString &typed) const;
    bool operator==(const Environment &other) const
    {
        return label == other.label && colour == other.colour;
    }
    bool operator!=(const Environment &other) const { return !(*this == other); }
};

} // namespace gatehouse

Q_DECLARE_METATYPE(gatehouse::Environment)
