// SPDX-License-Identifier: MIT
#include "environmentbadge.h"

#include <QApplication>
#include <QEvent>

namespace gatehouse {

EnvironmentBadge::EnvironmentBadge(const Environment &environment, const QString &text,
                                   QWidget *parent)
    : QLabel(parent)
    , m_environment(environment)
{
    setTextFormat(Qt::PlainText);
    setText(text.isEmpty() ? environment.shown() : text);
    paint();
}

bool EnvironmentBadge::event(QEvent *event)
{
    const bool handled = QLabel::event(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange)
        paint();
    return handled;
}

void EnvironmentBadge::paint()
{
    // The application's palette decides light or dark: the label's own is
    // the style sheet's once painted.
    m_colours = theme::environmentBadge(m_environment.colour, QApplication::palette());
    const QString sheet = QStringLiteral("QLabel { color: %1; background-color: %2; "
                                         "font-weight: bold; border-radius: 3px; "
                                         "padding: 2px 8px; }")
                              .arg(m_colours.text.name(), m_colours.fill.name());
    if (styleSheet() != sheet) // setting it sends a palette change: no loop
        setStyleSheet(sheet);
}

} // namespace gatehouse
